package policies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestForEachMistakeIsReportedOnce(t *testing.T) {
	dir := t.TempDir()
	src := `lossless "roce" {
  cos = [4]
}

host "node" {
  for_each    = toset(["n1", "n2", "n3"])
  address     = each.key
  credentials = "nodes"
  nic "ens1f0" {
    vlan    = 100
    address = "10.0.0.1/24"
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fab, _, diags := Load(dir, LoadOptions{Getenv: func(string) (string, bool) { return "", false }})
	if fab != nil {
		t.Fatal("a policy with errors returned a Fabric")
	}
	var unknown []string
	for _, d := range diags {
		if d.Summary == "Unknown credentials" {
			unknown = append(unknown, d.Detail)
			if d.Subject == nil || d.Subject.Start.Line != 8 {
				t.Errorf("position = %v, want line 8", d.Subject)
			}
		}
	}
	if len(unknown) != 1 {
		t.Fatalf("want the unknown credentials reported once, got %d:\n%s", len(unknown), strings.Join(unknown, "\n---\n"))
	}
	if !strings.Contains(unknown[0], "2 more instance(s)") {
		t.Fatalf("the collapsed error does not say how many instances share it:\n%s", unknown[0])
	}
}

// A lossless block is no for_each: when switches of two kinds each warn
// at its bandwidth_percent, the note must not speak of instances, and the
// second switch's reason must not be lost.
func TestRepeatsOutsideForEachKeepTheirDetail(t *testing.T) {
	rng := hcl.Range{Filename: "main.hcl", Start: hcl.Pos{Line: 4, Column: 3, Byte: 40}, End: hcl.Pos{Line: 4, Column: 25, Byte: 62}}
	block := hcl.Range{Filename: "main.hcl", Start: hcl.Pos{Byte: 100}, End: hcl.Pos{Byte: 300}}
	warn := func(detail string) *hcl.Diagnostic {
		r := rng
		return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "bandwidth_percent not applied", Detail: detail, Subject: &r}
	}
	tests := []struct {
		name     string
		in       hcl.Diagnostics
		forEach  []hcl.Range
		want     []string
		dontWant []string
	}{
		{"two kinds, two reasons", hcl.Diagnostics{warn("on switch a (gnmi/sonic)"), warn("on switch b (gnmi/srlinux)")}, []hcl.Range{block},
			[]string{"on switch a (gnmi/sonic)", "Also:\n- on switch b (gnmi/srlinux)"}, []string{"for_each", "instance"}},
		{"same detail twice", hcl.Diagnostics{warn("same"), warn("same")}, nil,
			[]string{"Reported 1 more time(s) for this place"}, []string{"for_each", "Also:"}},
		{"inside a for_each block", hcl.Diagnostics{warn("x"), warn("y"), warn("z")}, []hcl.Range{{Filename: "main.hcl", Start: hcl.Pos{Byte: 0}, End: hcl.Pos{Byte: 500}}},
			[]string{"2 more instance(s) of this block (for_each)"}, []string{"Also:"}},
		{"many distinct details are capped", hcl.Diagnostics{warn("0"), warn("1"), warn("2"), warn("3"), warn("4"), warn("5"), warn("6"), warn("7")}, nil,
			[]string{"- 1\n", "- 5\n", "- and 2 more"}, []string{"- 6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := collapseRepeats(tt.in, tt.forEach)
			if len(out) != 1 {
				t.Fatalf("got %d diagnostics, want 1", len(out))
			}
			for _, w := range tt.want {
				if !strings.Contains(out[0].Detail, w) {
					t.Errorf("detail lacks %q:\n%s", w, out[0].Detail)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(out[0].Detail, w) {
					t.Errorf("detail has %q:\n%s", w, out[0].Detail)
				}
			}
		})
	}
}
