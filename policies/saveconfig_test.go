package policies

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestSwitchSaveConfig: save_config decodes to the switch (absent means
// "auto"), and a value the platform cannot honour is an error naming the
// attribute's line.
func TestSwitchSaveConfig(t *testing.T) {
	nexus := func(line string) string {
		return "switch \"s\" {\n  platform    = \"nexus7000\"\n  address     = \"10.0.0.1\"\n  credentials = \"c\"\n" + line + "}\n" + losslessCoS4 + tailCreds
	}
	gnmi := func(line string) string {
		return "switch \"s\" {\n  platform = \"gnmi\"\n  profile  = \"srlinux\"\n  address  = \"10.0.0.1:57400\"\n" + line + "}\n" + losslessCoS4 + tailCreds
	}
	cases := []struct {
		name, src, want, err, pos string
	}{
		{name: "absent is auto", src: nexus(""), want: SaveConfigAuto},
		{name: "auto", src: nexus("  save_config = \"auto\"\n"), want: SaveConfigAuto},
		{name: "always", src: nexus("  save_config = \"always\"\n"), want: SaveConfigAlways},
		{name: "never", src: nexus("  save_config = \"never\"\n"), want: SaveConfigNever},
		{name: "gnmi never", src: gnmi("  save_config = \"never\"\n"), want: SaveConfigNever},
		{name: "gnmi absent", src: gnmi(""), want: SaveConfigAuto},
		{name: "unknown value", src: nexus("  save_config = \"yes\"\n"), err: `save_config = "yes"; use "auto"`, pos: "main.hcl:5:3"},
		{name: "always over gnmi", src: gnmi("  save_config = \"always\"\n"), err: "gNMI has no standard operation that saves the configuration", pos: "main.hcl:5:3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, _, diags, _ := loadString(t, tc.src)
			if tc.err != "" {
				d := findDiag(diags, tc.err)
				if f != nil || d == nil || d.Severity != hcl.DiagError {
					t.Fatalf("want error %q; got fabric=%v diags:\n%s", tc.err, f != nil, describeDiags(diags))
				}
				if got := diagPos(d); got != tc.pos {
					t.Errorf("diagnostic at %q, want %q", got, tc.pos)
				}
				return
			}
			if f == nil || diags.HasErrors() {
				t.Fatalf("load failed:\n%s", describeDiags(diags))
			}
			if got := f.Switches[0].SaveConfig; got != tc.want {
				t.Errorf("SaveConfig = %q, want %q", got, tc.want)
			}
		})
	}
}
