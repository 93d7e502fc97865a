package plan

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func thisMachinePlan() *Plan {
	mtu := Change{Address: "nic.eth0.mtu", Action: ActionUpdate, Before: "mtu 1500", After: "mtu 9000", Disrupt: DisruptionLink}
	return &Plan{
		FormatVersion: FormatVersion,
		CreatedAt:     time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		PolicyDir:     "policy",
		PolicyDigest:  "sha256:00",
		Targets: []*TargetPlan{
			{Address: "switch.leaf1", Kind: "nexus5000", Changes: []Change{{Address: "system qos", Action: ActionUpdate, Disrupt: DisruptionBrief}}},
			{Address: "host.self", Kind: "host", Endpoint: "local", Changes: []Change{mtu},
				ThisMachine: &ThisMachine{Interfaces: []string{"eth0", "eth0.100"},
					CutOff: []string{"eth0: MTU 1500 → 9000 on the interface carrying this machine's default route"}}},
			{Address: "host.idle", Kind: "host", Endpoint: "local", Changes: []Change{}, ThisMachine: &ThisMachine{Interfaces: []string{}}},
		},
	}
}

func TestThisMachineRefusal(t *testing.T) {
	change := []Change{{Address: "nic.eth0.pfc", Action: ActionUpdate, Disrupt: DisruptionLink}}
	plain := &TargetPlan{Address: "host.self", Changes: change, ThisMachine: &ThisMachine{Interfaces: []string{"eth0"}}}
	cut := &TargetPlan{Address: "host.self", Changes: change, ThisMachine: &ThisMachine{Interfaces: []string{"eth0"}, CutOff: []string{"eth0: MTU"}}}
	cases := []struct {
		name    string
		tp      *TargetPlan
		consent ThisMachineConsent
		want    string // "" = allowed; else a fragment of the refusal
	}{
		{"nil target", nil, ThisMachineConsent{}, ""},
		{"another machine", &TargetPlan{Address: "host.n1", Changes: change}, ThisMachineConsent{}, ""},
		{"this machine, nothing to change", &TargetPlan{Address: "host.self", Changes: []Change{}, ThisMachine: &ThisMachine{}}, ThisMachineConsent{}, ""},
		{"this machine, no consent", plain, ThisMachineConsent{}, "pass -allow-this-machine"},
		{"this machine, no consent, CI", plain, ThisMachineConsent{CI: true}, "CI=true"},
		{"cut-off flag alone is not consent", plain, ThisMachineConsent{AllowCutOff: true}, "-allow-this-machine"},
		{"this machine, consent", plain, ThisMachineConsent{AllowThisMachine: true}, ""},
		{"this machine, consent, CI", plain, ThisMachineConsent{AllowThisMachine: true, CI: true}, ""},
		{"cut-off without the second opt-in", cut, ThisMachineConsent{AllowThisMachine: true}, "pass -allow-cut-off"},
		{"cut-off without the second opt-in, CI", cut, ThisMachineConsent{AllowThisMachine: true, CI: true}, "pass -allow-cut-off"},
		{"cut-off with both", cut, ThisMachineConsent{AllowThisMachine: true, AllowCutOff: true}, ""},
		{"cut-off with only the second", cut, ThisMachineConsent{AllowCutOff: true}, "-allow-this-machine"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ThisMachineRefusal(tc.tp, tc.consent)
			if tc.want == "" {
				if got != "" {
					t.Fatalf("refused: %s", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) || !strings.Contains(got, "host.self") {
				t.Fatalf("refusal %q lacks %q or the target's name", got, tc.want)
			}
		})
	}
}

func TestCheckThisMachineNamesEveryRefusedTarget(t *testing.T) {
	p := thisMachinePlan()
	p.Targets = append(p.Targets, &TargetPlan{Address: "host.self2", Changes: []Change{{Address: "file:/etc/nccl.conf", Action: ActionUpdate}},
		ThisMachine: &ThisMachine{Interfaces: []string{}}})
	err := CheckThisMachine(p, ThisMachineConsent{})
	if err == nil {
		t.Fatal("a plan changing this machine passed without consent")
	}
	for _, want := range []string{"nothing was applied", "host.self is", "host.self2 is", "eth0, eth0.100"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "host.idle") || strings.Contains(err.Error(), "switch.leaf1") {
		t.Errorf("error names a target that needs no consent:\n%v", err)
	}
	// host.self can cut the machine off: one flag is not enough.
	if err := CheckThisMachine(p, ThisMachineConsent{AllowThisMachine: true}); err == nil || strings.Contains(err.Error(), "host.self2") {
		t.Errorf("with -allow-this-machine only host.self (cut-off) must be refused: %v", err)
	}
	if err := CheckThisMachine(p, ThisMachineConsent{AllowThisMachine: true, AllowCutOff: true}); err != nil {
		t.Errorf("both opt-ins: %v", err)
	}
	if err := CheckThisMachine(nil, ThisMachineConsent{}); err != nil {
		t.Errorf("nil plan: %v", err)
	}
}

func TestGuardThisMachineCarriesConsent(t *testing.T) {
	ctx := context.Background()
	if got := ThisMachineConsentFrom(ctx); got != (ThisMachineConsent{}) {
		t.Fatalf("a bare context carries consent %+v", got)
	}
	p := thisMachinePlan()
	if _, err := GuardThisMachine(ctx, p, ThisMachineConsent{}); err == nil {
		t.Fatal("guard passed without consent")
	}
	c := ThisMachineConsent{AllowThisMachine: true, AllowCutOff: true, CI: true}
	gctx, err := GuardThisMachine(ctx, p, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := ThisMachineConsentFrom(gctx); got != c {
		t.Errorf("consent in context %+v, want %+v", got, c)
	}
}

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{"": false, "true": true, "TRUE": true, "1": true, "false": false, "0": false, " false ": false, "yes": true} {
		if got := InCI(func(string) string { return v }); got != want {
			t.Errorf("CI=%q: InCI = %v, want %v", v, got, want)
		}
	}
}

// The plan says "this machine" in every format a reviewer reads: the
// text diff, the Markdown comment and the JSON.
func TestThisMachineRendered(t *testing.T) {
	p := thisMachinePlan()
	txt, md, js := renderAll(t, p)
	checkGolden(t, "thismachine.txt", []byte(txt))
	checkGolden(t, "thismachine.md", []byte(md))
	for name, out := range map[string]string{"text": txt, "markdown": md} {
		for _, want := range []string{"THIS MACHINE", "host.self", "eth0, eth0.100", "-allow-this-machine", "CAN CUT THIS MACHINE OFF", "-allow-cut-off"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s plan lacks %q:\n%s", name, want, out)
			}
		}
		// The banner comes before any target's diff.
		if i, j := strings.Index(out, "THIS MACHINE"), strings.Index(out, "system qos"); i < 0 || j >= 0 && j < i {
			t.Errorf("%s: the banner is not at the top:\n%s", name, out)
		}
	}
	var doc struct {
		Targets []struct {
			Address     string       `json:"address"`
			ThisMachine *ThisMachine `json:"this_machine"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]*ThisMachine{}
	for _, tg := range doc.Targets {
		got[tg.Address] = tg.ThisMachine
	}
	if got["switch.leaf1"] != nil || got["host.self"] == nil || len(got["host.self"].CutOff) != 1 ||
		strings.Join(got["host.self"].Interfaces, ",") != "eth0,eth0.100" || got["host.idle"] == nil {
		t.Errorf("JSON this_machine per target: %s", js)
	}
	// A plan without such a target renders exactly as before: no banner.
	p.Targets = p.Targets[:1]
	txt, md, _ = renderAll(t, p)
	if strings.Contains(txt+md, "THIS MACHINE") {
		t.Errorf("banner without a this-machine target:\n%s\n%s", txt, md)
	}
}
