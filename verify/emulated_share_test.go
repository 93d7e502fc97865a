package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shareSwitch is a fake switch that also reports its queue share.
type shareSwitch struct {
	*fakeSwitch
	pct   int
	where string
}

func (s *shareSwitch) QueueShare(ctx context.Context, priority int) (int, string, error) {
	if priority != 3 {
		return 0, "wrong priority asked", nil
	}
	return s.pct, s.where, nil
}

// TestEmulatedQueueShare: the emulated path reads each switch's queue
// share for the class; without background load the share does not bind,
// with the lab's background load the class gets max(share, 1−load) of
// the ceiling and the diagnosis names the switch; a share that fell since
// the baseline is named with both values.
func TestEmulatedQueueShare(t *testing.T) {
	s := labSetup(t, "a", "b")
	leaf2 := &shareSwitch{fakeSwitch: s.switches["leaf2"], pct: 50, where: "ROCE-QUEUING-OUT class ROCE-roce"}
	s.fabric.Switches["switch.leaf2"] = leaf2
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Probes[0]
	if rep.ExitCode() != ExitPass || p.AvgGbps != p.Ceiling.Gbps {
		t.Fatalf("idle links: exit %d at %.2f Gb/s, want a pass at the ceiling:\n%s", rep.ExitCode(), p.AvgGbps, reportText(rep))
	}
	var hop *EmulatedHop
	for i := range p.Emulated.Hops {
		h := &p.Emulated.Hops[i]
		switch h.Device {
		case "switch.leaf2":
			hop = h
		case "switch.leaf1":
			if h.SharePercent != 0 || !strings.HasPrefix(h.Share, "unknown: ") {
				t.Errorf("leaf1 reads no share: %+v", h)
			}
		}
	}
	if hop == nil || hop.SharePercent != 50 || hop.Share != leaf2.where {
		t.Fatalf("leaf2 hop %+v, want its 50 %% share", hop)
	}
	if g := p.Emulated.Path.GuaranteedGbps; g != 0.5*p.Ceiling.Gbps || p.Emulated.Path.ShareBinds {
		t.Errorf("guaranteed %.2f (binds %v), want half the ceiling, not binding", g, p.Emulated.Path.ShareBinds)
	}
	if got := rep.Versions["switch.leaf2"][QueueShareKey("roce")]; got != "50%" {
		t.Errorf("report versions keep the share as %q, want 50%%", got)
	}
	base := NewBaseline(rep)

	// The share falls to 10 % and other classes keep 90 % of the link
	// toward both hosts busy: the class gets 10 % of the ceiling.
	leaf2.pct = 10
	for _, h := range s.fabric.Policy.Hosts {
		if err := os.WriteFile(filepath.Join(h.Root, LabBackgroundFile), []byte("0.9\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := fastOpts
	opts.Baseline = base
	rep, err = Run(context.Background(), s.fabric, opts)
	if err != nil {
		t.Fatal(err)
	}
	p = rep.Probes[0]
	if p.Status != StatusFail || !p.Emulated.Path.ShareBinds || p.AvgGbps != 0.1*p.Ceiling.Gbps {
		t.Fatalf("probe %s at %.2f Gb/s (binds %v), want a failure at 10 %% of the ceiling:\n%s", p.Status, p.AvgGbps, p.Emulated.Path.ShareBinds, reportText(rep))
	}
	var named []string
	for _, c := range p.Causes {
		if c.Kind == CauseQueueShare && c.Device == "switch.leaf2" {
			named = append(named, c.Detail)
		}
	}
	if len(named) != 2 || !strings.Contains(strings.Join(named, "|"), "queue share of class roce on switch.leaf2 fell from 50 % to 10 % since the baseline") {
		t.Errorf("queue-share causes %q, want the capped share and its fall since the baseline:\n%s", named, reportText(rep))
	}
	if !strings.Contains(reportText(rep), "fell from 50 % to 10 %") {
		t.Errorf("the text report does not name the change:\n%s", reportText(rep))
	}
	var js bytes.Buffer
	if err := Render(&js, rep, "json"); err != nil {
		t.Fatal(err)
	}
	if errs := reportSchema(t).Validate(js.Bytes(), "#"); len(errs) > 0 {
		t.Errorf("report with queue shares does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	for _, f := range []string{`"share_percent": 10`, `"guaranteed_gbps"`, `"share_binds": true`, `"kind": "queue-share"`} {
		if !strings.Contains(js.String(), f) {
			t.Errorf("JSON report lacks %s", f)
		}
	}

	// A background file that is not a share is refused in a note, and
	// modelled as no background.
	for _, h := range s.fabric.Policy.Hosts {
		if err := os.WriteFile(filepath.Join(h.Root, LabBackgroundFile), []byte("lots\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err = Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Probes[0]; p.Status != StatusPass || !strings.Contains(strings.Join(p.Notes, "\n"), `"lots" is not a share between 0 and 1`) {
		t.Errorf("bad background file: %s, notes %q", p.Status, p.Notes)
	}
}
