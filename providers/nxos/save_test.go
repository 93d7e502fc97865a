package nxos

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
)

// TestApplySavesConfig: what the startup configuration holds after an
// apply, per save_config and per what was unsaved before it.
func TestApplySavesConfig(t *testing.T) {
	for _, tc := range []struct {
		name, save string
		// foreign is an operator's unsaved edit made before the plan.
		foreign []string
		reject  bool
		saved   bool
		warning string // substring of the single warning; "" = none
		errText string // substring of the result's error; "" = none
	}{
		{name: "auto saves a clean switch", save: policies.SaveConfigAuto, saved: true},
		{name: "unset is auto", save: "", saved: true},
		{name: "never", save: policies.SaveConfigNever, warning: `not saved (save_config = "never")`},
		{name: "auto leaves foreign unsaved changes", save: policies.SaveConfigAuto, foreign: []string{"interface Ethernet1/1", "description changed-by-hand"},
			warning: "unsaved changes that are not roce's"},
		{name: "always saves them too", save: policies.SaveConfigAlways, foreign: []string{"interface Ethernet1/1", "description changed-by-hand"}, saved: true},
		{name: "save refused", save: policies.SaveConfigAuto, reject: true, errText: "applied and verified, but not saved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
			r.sw.SaveConfig = tc.save
			sim := r.srv.Switch()
			if len(tc.foreign) > 0 {
				applyByHand(t, r, tc.foreign)
			}
			before := sim.StartupConfig()
			tp := r.plan(t)
			if !tp.HasChanges() {
				t.Fatal("nothing to apply")
			}
			if want := map[string]string{"": "auto"}[tc.save]; want != "" && !strings.Contains(string(tp.Payload), `"save_config":"auto"`) {
				t.Errorf("plan payload %s does not record save_config", tp.Payload)
			}
			if tc.reject {
				sim.SetFaults(nxsim.Faults{RejectCommand: "copy running-config startup-config"})
			}
			res, err := r.apply(t, tp)
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("status %s, err %v\n%s", res.Status, err, transcriptText(res.Transcript))
			}
			if !strings.Contains(sim.RunningConfig(), "priority-flow-control mode on") {
				t.Fatal("the applied change is not in the running configuration")
			}
			if got := sim.StartupConfig() == sim.RunningConfig(); got != tc.saved {
				t.Errorf("startup == running after apply: %v, want %v", got, tc.saved)
			}
			if !tc.saved && sim.StartupConfig() != before {
				t.Error("the startup configuration changed although roce did not save")
			}
			switch {
			case tc.warning == "" && len(res.Warnings) > 0:
				t.Errorf("warnings %q, want none", res.Warnings)
			case tc.warning != "" && (len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.warning) || !strings.Contains(res.Warnings[0], "`copy running-config startup-config`")):
				t.Errorf("warnings %q, want one with %q and the command", res.Warnings, tc.warning)
			}
			if (tc.errText == "") != (res.Error == "") || !strings.Contains(res.Error, tc.errText) {
				t.Errorf("error %q, want %q", res.Error, tc.errText)
			}
			if strings.Contains(strings.Join(sim.Checkpoints(), " "), "roce-") {
				t.Errorf("a roce checkpoint is left: %v", sim.Checkpoints())
			}
			// Whether saved or not, a plan now is empty; one that was not
			// saved says so, naming what a reload drops.
			again := r.plan(t)
			if again.HasChanges() {
				t.Fatalf("plan after apply: %v", again.Commands)
			}
			notSaved := strings.Contains(strings.Join(again.Warnings, "\n"), "applied but not saved")
			if notSaved == tc.saved {
				t.Errorf("plan after apply warns 'applied but not saved': %v, want %v; warnings %q", notSaved, !tc.saved, again.Warnings)
			}
		})
	}
}

// An apply under "auto" saves when what is unsaved is roce's own earlier
// change (an apply with save_config = "never"): that is not someone
// else's edit.
func TestApplyAutoSavesRoceOwnUnsaved(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
	sim := r.srv.Switch()
	r.sw.SaveConfig = policies.SaveConfigNever
	if res, err := r.apply(t, r.plan(t)); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("first apply: %s %v", res.Status, err)
	}
	if sim.StartupConfig() == sim.RunningConfig() {
		t.Fatal("save_config = never saved")
	}
	r.sw.SaveConfig = policies.SaveConfigAuto
	r.target.env.Fabric.Lossless[0].BandwidthPercent = 30
	tp := r.plan(t)
	if !tp.HasChanges() {
		t.Fatal("the changed class plans nothing")
	}
	res, err := r.apply(t, tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("second apply: %s %v", res.Status, err)
	}
	if len(res.Warnings) > 0 || sim.StartupConfig() != sim.RunningConfig() {
		t.Fatalf("roce's own unsaved change kept auto from saving: warnings %q", res.Warnings)
	}
}

// A run killed between its verify and its save leaves the switch applied
// but not saved: -recover reports it applied, with the warning and the
// command, and after a save by hand it has nothing to say.
func TestRecoverSaysAppliedButNotSaved(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
	tp := r.plan(t)
	steps := checkpointStep(t, r)
	applyByHand(t, r, tp.Commands)
	steps = append(steps, plan.JournalStep{Step: stepPush}, plan.JournalStep{Step: stepPushed}, plan.JournalStep{Step: stepVerified})
	entry := &plan.JournalEntry{Address: tp.Address, Kind: tp.Kind, Target: tp, Steps: steps}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := r.target.Recover(ctx, entry)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("recover: %s %v", res.Status, err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "applied but not saved") || !strings.Contains(res.Warnings[0], "copy running-config startup-config") {
		t.Fatalf("warnings %q, want the applied-but-not-saved note", res.Warnings)
	}
	c := openConn(t, ctx, r)
	out, err := c.command(saveCommand)
	c.close()
	if err != nil || !strings.Contains(out, "Copy complete") {
		t.Fatalf("save by hand: %q %v", out, err)
	}
	if res, _ = r.target.Recover(ctx, entry); len(res.Warnings) != 0 {
		t.Fatalf("after a save, warnings %q", res.Warnings)
	}
}

// A refused `show startup-config` read does not fail the read: the saved
// state is unknown instead. Any other refused read still fails it.
func TestStartupReadRefused(t *testing.T) {
	refused := "                     ^\n% Invalid command at '^' marker."
	cmds := []string{"show running-config ipqos", "show startup-config ipqos", "show checkpoint summary"}
	for _, tc := range []struct {
		name  string
		parts []string
		ok    bool
	}{
		{name: "none refused", parts: []string{"class-map type qos c1", "class-map type qos c1", ""}, ok: true},
		{name: "startup refused", parts: []string{"class-map type qos c1", refused, ""}, ok: true},
		{name: "running refused", parts: []string{refused, "", ""}},
		{name: "checkpoint summary refused", parts: []string{"", "", refused}},
		{name: "session lost", parts: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := onlyStartupRefused(cmds, tc.parts); got != tc.ok {
				t.Errorf("onlyStartupRefused = %v, want %v", got, tc.ok)
			}
		})
	}
	var st state
	st.takeStartup([]string{"class-map type qos c1\n", refused})
	if st.startupRead {
		t.Error("a refused startup read counts as read")
	}
	st.takeStartup([]string{"!Command: show startup-config ipqos\nversion 7.1(4)N1(1)\nclass-map type qos c1\n"})
	if !st.startupRead || st.startup != "class-map type qos c1\n" {
		t.Errorf("startup %q read %v", st.startup, st.startupRead)
	}
}

// The command the provider sends is the one the capability table names.
func TestSaveCommandMatchesCapabilities(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		if c := platforms.Default()[kind]; c.SaveCommand != saveCommand || !c.SavedByApply {
			t.Errorf("%s: table says %q (saved by apply %v), the provider sends %q", kind, c.SaveCommand, c.SavedByApply, saveCommand)
		}
	}
}
