package lab

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/jsonschema"
)

// TestStatusListsEveryDevice: `roce-lab status` (over the control socket)
// lists every simulated switch and host with its address, platform,
// version and state, and the versions follow roce-lab upgrade.
func TestStatusListsEveryDevice(t *testing.T) {
	ctx, dir, l, stop := labWithControl(t)
	defer stop()

	st, err := RequestStatus(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ platform, version, state string }
	want := map[string]row{
		"switch.n5k-1":   {"nexus5000", "7.1(4)N1(1)", "up"},
		"switch.n7k-1":   {"nexus7000", "5.1(3)", "up"},
		"switch.eos-1":   {"gnmi (arista)", "4.36.1F", "up"},
		"switch.sonic-1": {"gnmi (sonic)", "SONiC.202411", "up"},
		"switch.srl-1":   {"gnmi (srlinux)", "v25.3.1", "up"},
		"host.h1":        {"host", "mlx5_0 16.35.2000", "up (simulated)"},
		"host.h2":        {"host", "mlx5_0 16.35.2000", "up (simulated)"},
		"host.h3":        {"host", "mlx5_0 16.35.2000", "up (simulated)"},
		"host.h4":        {"host", "mlx5_0 16.35.2000", "up (simulated)"},
	}
	check := func(st *Status) {
		t.Helper()
		if st.FormatVersion != StatusFormatVersion || st.ID != l.ID || st.StartedAt.IsZero() || st.GeneratedAt.Before(st.StartedAt.Truncate(time.Second)) {
			t.Errorf("header: %+v", st)
		}
		if len(st.Devices) != len(want) {
			t.Errorf("%d devices, want %d: %+v", len(st.Devices), len(want), st.Devices)
		}
		for _, d := range st.Devices {
			w, ok := want[d.Target]
			if !ok {
				t.Errorf("unexpected device %+v", d)
				continue
			}
			if d.Platform != w.platform || d.Version != w.version || d.State != w.state {
				t.Errorf("%s: got %q %q %q, want %q %q %q", d.Target, d.Platform, d.Version, d.State, w.platform, w.version, w.state)
			}
			if strings.HasPrefix(d.Target, "switch.") && d.Address != l.Switches[strings.TrimPrefix(d.Target, "switch.")] {
				t.Errorf("%s: address %q, want %q", d.Target, d.Address, l.Switches[strings.TrimPrefix(d.Target, "switch.")])
			}
			if d.Target == "host.h1" && d.Address != "10.10.0.11/24" {
				t.Errorf("host.h1: address %q, want its NIC address 10.10.0.11/24", d.Address)
			}
		}
	}
	check(st)

	if _, err := RequestUpgrade(ctx, dir, UpgradeRequest{Target: "switch.n7k-1", Version: "5.1(5)"}); err != nil {
		t.Fatal(err)
	}
	if _, err := RequestUpgrade(ctx, dir, UpgradeRequest{Target: "host.h2", Version: "16.36.1010"}); err != nil {
		t.Fatal(err)
	}
	want["switch.n7k-1"] = row{"nexus7000", "5.1(5)", "up"}
	want["host.h2"] = row{"host", "mlx5_0 16.36.1010", "up (simulated)"}
	st, err = RequestStatus(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	check(st)
	for _, d := range st.Devices {
		switch d.Target {
		case "switch.n7k-1":
			if d.LastReset != "Disruptive upgrade" || d.BootedAt == nil || d.BootedAt.Before(st.StartedAt.Truncate(time.Second)) {
				t.Errorf("n7k-1 after its upgrade: last reset %q at %v (lab started %v)", d.LastReset, d.BootedAt, st.StartedAt)
			}
		case "switch.n5k-1":
			if d.LastReset != "" || d.BootedAt == nil {
				t.Errorf("n5k-1 was not upgraded: last reset %q at %v", d.LastReset, d.BootedAt)
			}
		case "host.h2":
			if d.LastReset != "NIC firmware update to 16.36.1010 (driver reload)" || d.BootedAt == nil {
				t.Errorf("h2 after its firmware update: last reset %q at %v", d.LastReset, d.BootedAt)
			}
		case "host.h1":
			if d.LastReset != "" || d.BootedAt != nil {
				t.Errorf("h1 was not reloaded: last reset %q at %v", d.LastReset, d.BootedAt)
			}
		}
	}

	// A simulator that stopped listening is reported down.
	if err := l.Targets["srl-1"].Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range l.Status().Devices {
		if d.Target == "switch.srl-1" && !strings.HasPrefix(d.State, "down: ") {
			t.Errorf("a closed simulator is reported %q", d.State)
		}
	}

	var text bytes.Buffer
	if err := st.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"TARGET", "PLATFORM", "ADDRESS", "VERSION", "STATE", "LAST RESET", "Disruptive upgrade at ", "runs (pid", "switch.n7k-1", "5.1(5)", "host.h2", "16.36.1010", "lab.vars"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text status lacks %q:\n%s", s, text.String())
		}
	}

	// The JSON document: snake_case names, an integer format_version and
	// RFC 3339 times (docs/lab-status.md).
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Load("../../docs/lab-status.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if errs := schema.Validate(b, "#"); len(errs) > 0 {
		t.Errorf("status JSON does not match docs/lab-status.schema.json:\n%s\n%s", strings.Join(errs, "\n"), b)
	}
	for _, p := range schema.Documented("status", "device") {
		if !schema.Seen(p) {
			t.Errorf("the schema documents %s, which the status never has", p)
		}
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if v, ok := raw["format_version"].(float64); !ok || v != 1 {
		t.Errorf("format_version = %#v, want the integer 1", raw["format_version"])
	}
	for _, k := range []string{"started_at", "generated_at"} {
		s, _ := raw[k].(string)
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			t.Errorf("%s = %q is not RFC 3339: %v", k, s, err)
		}
	}

	// An unknown op is refused with what the lab answers.
	rep, err := RequestUpgrade(ctx, dir, UpgradeRequest{Op: "reboot"})
	if err == nil || !strings.Contains(err.Error(), "unknown op") {
		t.Errorf("unknown op: %+v, %v", rep, err)
	}
}
