package policies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
