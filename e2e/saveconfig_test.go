package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// TestAppliedChangeSurvivesReload: the change roce-apply made survives the
// switch's next reload because roce-apply saved it (save_config = "auto"),
// and with save_config = "never" the reload drops it and the plan says so
// before the reload ("applied but not saved") and after it (the class is
// missing). One lab: first "never", then "auto". The upgrades are
// -unsaved and stay below 5.1(5) (no modelled default change), so only
// roce's own save can keep the change.
func TestAppliedChangeSurvivesReload(t *testing.T) {
	l := startLab(t)
	serveControl(t, l)
	// never: applied, not saved, and the report and the plan say so.
	setSaveConfig(t, l.Dir, "n7k-1", "never")
	a := roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n7k-1", l.Dir)
	if a.code != 0 {
		t.Fatalf("apply with save_config = never\n%s", a)
	}
	mustContain(t, "the apply report", a.stdout, "switch.n7k-1: applied", `warning: not saved (save_config = "never")`, "`copy running-config startup-config`")
	p := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n7k-1", l.Dir)
	if p.code != 0 {
		t.Fatalf("the plan right after the apply must be empty\n%s", p)
	}
	mustContain(t, "the plan before the reload", p.stdout, "applied but not saved", "the next reload")
	if r := roceLab(t, "upgrade", "-lab", l.Dir, "-unsaved", "switch.n7k-1", "5.1(4)"); r.code != 0 {
		t.Fatalf("roce-lab upgrade -unsaved\n%s", r)
	}
	p = roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n7k-1", l.Dir)
	if p.code != 2 {
		t.Fatalf("save_config = never: after the reload the class must be missing (exit 2)\n%s", p)
	}
	mustContain(t, "the plan after the reload", p.stdout, "ROCE-")

	// auto: the apply saves, and the reload keeps the class.
	setSaveConfig(t, l.Dir, "n7k-1", "auto")
	a = roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n7k-1", l.Dir)
	if a.code != 0 || strings.Contains(a.stdout, "not saved") {
		t.Fatalf("apply with save_config = auto: want applied and saved\n%s", a)
	}
	if r := roceLab(t, "upgrade", "-lab", l.Dir, "-unsaved", "switch.n7k-1", "5.1(4)"); r.code != 0 {
		t.Fatalf("roce-lab upgrade -unsaved\n%s", r)
	}
	p = roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n7k-1", l.Dir)
	if p.code != 0 || strings.Contains(p.stdout, "not saved") {
		t.Fatalf("saved by roce-apply: the plan after the reload must be empty\n%s", p)
	}
}

// setSaveConfig sets save_config on one switch of the lab's policy (the
// lab's switch blocks set none, so "auto" applies until this is called).
func setSaveConfig(t *testing.T, dir, name, value string) {
	t.Helper()
	policy := filepath.Join(dir, "lab.hcl")
	src, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	anchor := "switch \"" + name + "\" {\n"
	text := string(src)
	if i := strings.Index(text, anchor); i >= 0 {
		rest := text[i+len(anchor):]
		if strings.HasPrefix(rest, "  save_config = ") {
			rest = rest[strings.IndexByte(rest, '\n')+1:]
		}
		text = text[:i] + anchor + "  save_config = \"" + value + "\"\n" + rest
	} else {
		t.Fatalf("%s has no %q", policy, anchor)
	}
	if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFaultSaveConfig: the save's fault cases on the lab's switches. A
// refused `copy running-config startup-config` leaves the target applied
// (not rolled back) with a "not saved" error naming the command; an
// operator's unsaved edit keeps "auto" from saving, with a warning, and
// neither it nor roce's change reaches the startup configuration.
func TestFaultSaveConfig(t *testing.T) {
	l := startLab(t)
	t.Run("save refused", func(t *testing.T) {
		sim := l.Sims["n5k-1"].Switch()
		eng, fab := labEngine(t, l, 0)
		bt, p := oneTarget(t, eng, fab, "switch.n5k-1")
		startup := sim.StartupConfig()
		sim.SetFaults(nxsim.Faults{RejectCommand: "copy running-config startup-config"})
		defer sim.SetFaults(nxsim.Faults{})
		res := applyOnce(t, eng, bt, p)
		if res.Status != plan.StatusApplied {
			t.Fatalf("status %q (%s), want applied", res.Status, res.Error)
		}
		for _, w := range []string{"applied and verified, but not saved", "`copy running-config startup-config`"} {
			if !strings.Contains(res.Error, w) {
				t.Errorf("error %q lacks %q", res.Error, w)
			}
		}
		if !strings.Contains(sim.RunningConfig(), "ROCE-") || sim.StartupConfig() != startup {
			t.Error("want roce's change running and the startup configuration untouched")
		}
	})
	t.Run("foreign unsaved edit", func(t *testing.T) {
		sim := l.Sims["n7k-1"].Switch()
		if err := sim.Configure("interface Ethernet3/1", "description changed-by-hand"); err != nil {
			t.Fatal(err)
		}
		startup := sim.StartupConfig()
		eng, fab := labEngine(t, l, 0)
		bt, p := oneTarget(t, eng, fab, "switch.n7k-1")
		res := applyOnce(t, eng, bt, p)
		if res.Status != plan.StatusApplied || res.Error != "" {
			t.Fatalf("status %q (%s), want applied", res.Status, res.Error)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "unsaved changes that are not roce's") {
			t.Fatalf("warnings %q", res.Warnings)
		}
		if sim.StartupConfig() != startup {
			t.Error("roce saved an operator's unsaved edit")
		}
	})
}
