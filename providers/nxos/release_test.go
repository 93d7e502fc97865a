package nxos

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// What roce renders for a Nexus 7000 needs no release-dependent command
// (docs/nxos.md#version-rules), so a 7000 on a release older than every
// rule plans, applies and ends with an empty plan, and the simulator of
// that release (which refuses, like the switch, what the release lacks)
// takes every line. The plan's release check sees the release the switch
// reports.
func TestPlanOnOlderReleases(t *testing.T) {
	for _, release := range []string{"5.2(9)", "6.1(2)", "6.2(2)"} {
		t.Run(release, func(t *testing.T) {
			o := rigOpts{kind: "nexus7000", start: "empty", mode: "cos"}
			if release == "5.2(9)" {
				// The Supervisor 2E and F2e cards need 6.1: a 5.2 switch
				// has a Supervisor 1 and F1/M1 cards (docs/nxos.md,
				// "Hardware and release").
				o.modules = []nexus.Module{
					{Slot: 1, Ports: 0, Type: "Supervisor module-1X", Model: "N7K-SUP1", Status: "active *"},
					{Slot: 2, Ports: 32, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F132XP-15", Status: "ok"},
					{Slot: 3, Ports: 48, Type: "10/100/1000 Mbps Ethernet Module", Model: "N7K-M148GT-11", Status: "ok"},
				}
			}
			r := newRig(t, o)
			if _, err := r.srv.Switch().Upgrade(release, nxsim.UpgradeOptions{SaveFirst: true}); err != nil {
				t.Fatal(err)
			}
			tp := r.plan(t)
			if tp.Facts["os"] != release || len(tp.Commands) == 0 {
				t.Fatalf("plan on %s: facts %v, %d commands", release, tp.Facts, len(tp.Commands))
			}
			if err := nexus.CheckPushRelease(tp.Commands, r.target.platform, release); err != nil {
				t.Fatalf("the plan holds a command %s lacks: %v", release, err)
			}
			res, err := r.apply(t, tp)
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("apply on %s: status %s, err %v\n%s", release, res.Status, err, transcriptText(res.Transcript))
			}
			if strings.Contains(transcriptText(res.Transcript), "Invalid command") {
				t.Fatalf("the switch refused a line:\n%s", transcriptText(res.Transcript))
			}
			if again := r.plan(t); again.HasChanges() {
				t.Fatalf("second plan on %s not empty: %v", release, again.Commands)
			}
		})
	}
}
