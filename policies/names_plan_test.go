package policies_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
	"github.com/zclconf/go-cty/cty"
)

// TestInterfaceNamesSameAtValidateAndPlan: for every gNMI profile, an
// interface name gets the same verdict, for the same reason, from
// `roce-plan validate` (policies.Load, at the interfaces attribute's
// file:line) and from plan (the profile's Render, which the gNMI provider
// calls to build the desired state), because both apply
// platforms.CheckInterfaceName.
func TestInterfaceNamesSameAtValidateAndPlan(t *testing.T) {
	long := "Ethernet" + strings.Repeat("1", 4992) // 5,000 characters
	// shape is what each profile's error shows its names look like.
	shape := map[string]string{"arista": "Ethernet1/1", "sonic": "Ethernet0", "srlinux": "ethernet-1/1", "openconfig": "et-0/0/1"}
	tests := []struct {
		name   string
		accept string // the profiles that have such a port, space separated
	}{
		{"Ethernet1", "arista sonic openconfig"},
		{"Ethernet1/1", "arista openconfig"},
		{"Ethernet3/1/1", "arista openconfig"},
		{"Ethernet0", "arista sonic openconfig"},
		{"Ethernet252", "arista sonic openconfig"},
		{"ethernet-1/1", "srlinux openconfig"},
		{"ethernet-1/3/1", "srlinux openconfig"},
		{"et-0/0/1", "openconfig"},
		{"swp1", "openconfig"},
		// Nonexistent-looking: another platform's shape, or out of range.
		{"eth0", "openconfig"},
		{"Ethernet99999", "openconfig"},
		{"Ethernet1/1/1/1", "openconfig"},
		{"ethernet-1/1/1/1", "openconfig"},
		{"ethernet-100/1", "openconfig"},
		{"1/1", ""},
		{"../Ethernet0", ""},
		// Hostile on every profile.
		{"*", ""},
		{"Ethernet*", ""},
		{"Ethernet1\n", ""},
		{"Ether\nnet1", ""},
		{"Ethernet0\x00", ""},
		{"Ethernet 1", ""},
		{"Ethernet0|3", ""},
		{"Ethernet0]/config[x=y", ""},
		{"Éthernet1", ""},
		{"", ""},
		{long, ""},
	}
	for _, profile := range []string{"arista", "sonic", "srlinux", "openconfig"} {
		kind := "gnmi/" + profile
		prof, err := profiles.New(profile, profiles.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		// The class plan renders is the one validate decoded from a policy
		// with a valid port (openconfig, without PFC, takes no class).
		var classes []*policies.Lossless
		if profile != "openconfig" {
			f, _, diags := loadSwitch(t, profile, shape[profile])
			if f == nil {
				t.Fatalf("%s: the policy with port %s does not load: %s", profile, shape[profile], diags.Error())
			}
			classes = f.Lossless
		}
		for _, tc := range tests {
			label := profile + " " + clipName(tc.name)
			want := strings.Contains(" "+tc.accept+" ", " "+profile+" ")

			// validate
			_, _, diags := loadSwitch(t, profile, tc.name)
			var bad *hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Invalid interface name" {
					bad = d
				}
			}
			// plan
			_, planErr := prof.Render(profiles.Input{Switch: "g", Interfaces: []string{tc.name}, Classes: classes})
			planRefused := planErr != nil && strings.Contains(planErr.Error(), "interface name")

			if (bad == nil) != want || planRefused == want {
				t.Errorf("%s: validate accepted = %v, plan accepted = %v, want both %v (validate: %v; plan: %v)", label, bad == nil, !planRefused, want, bad, planErr)
				continue
			}
			if want {
				if planErr != nil && profile != "openconfig" {
					t.Errorf("%s: plan refused a valid port: %v", label, planErr)
				}
				continue
			}
			// Refused: the same reason in both, at file:line, naming the
			// shape, never the whole hostile name.
			reason := platforms.CheckInterfaceName(kind, tc.name).Error()
			if !strings.Contains(bad.Detail, reason) || !strings.Contains(planErr.Error(), reason) {
				t.Errorf("%s: different reasons:\nvalidate: %s\nplan:     %v\nrule:     %s", label, bad.Detail, planErr, reason)
			}
			if bad.Subject == nil || bad.Subject.Filename != "main.hcl" || bad.Subject.Start.Line != 5 || bad.Subject.Start.Column != 3 {
				t.Errorf("%s: validate reports at %v, want main.hcl:5:3 (the interfaces attribute)", label, bad.Subject)
			}
			if !strings.Contains(bad.Detail, shape[profile]) {
				t.Errorf("%s: %q does not say the names look like %s", label, bad.Detail, shape[profile])
			}
			if len(tc.name) > 100 && (strings.Contains(bad.Detail, tc.name) || strings.Contains(planErr.Error(), tc.name)) {
				t.Errorf("%s: the error quotes the whole %d-character name", label, len(tc.name))
			}
		}
	}
}

// loadSwitch loads a policy with one gNMI switch of profile whose
// interfaces list holds name (written as an HCL string literal), in a
// directory of its own, as main.hcl with the interfaces on line 5.
func loadSwitch(t *testing.T, profile, name string) (*policies.Fabric, *policies.Sources, hcl.Diagnostics) {
	t.Helper()
	lit := string(hclwrite.TokensForValue(cty.StringVal(name)).Bytes())
	src := "switch \"g\" {\n  platform   = \"gnmi\"\n  profile    = \"" + profile + "\"\n  address    = \"192.0.2.1:9339\"\n  interfaces = [" + lit + "]\n}\n" +
		"lossless \"roce\" {\n  udp_port = 4791\n  dscp     = [26]\n  priority = 3\n}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Relative file names in diagnostics, as roce-plan run in the policy
	// directory prints them.
	t.Chdir(dir)
	return policies.Load(".", policies.LoadOptions{Getenv: func(string) (string, bool) { return "", false }})
}

func clipName(s string) string {
	if len(s) > 24 {
		return s[:24] + "..."
	}
	return s
}
