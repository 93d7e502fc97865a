package lab

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lab whose switch pairs hardware with a release too old for it (here a
// Supervisor 2 and an F2 card on 5.1(3)) does not come up, and the error
// names the switch, the hardware and the first release that runs it.
func TestUpRefusesHardwareTooNewForTheRelease(t *testing.T) {
	dir := copyLab(t)
	path := filepath.Join(dir, "lab.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var topo map[string]map[string]map[string]any
	if err := json.Unmarshal(b, &topo); err != nil {
		t.Fatal(err)
	}
	n7k := topo["switches"]["n7k-1"]
	if n7k["version"] != "5.1(3)" {
		t.Fatalf("examples/lab n7k-1 runs %v; this test expects 5.1(3)", n7k["version"])
	}
	n7k["modules"] = []map[string]any{
		{"Slot": 1, "Ports": 0, "Type": "Supervisor Module-2", "Model": "N7K-SUP2", "Status": "active *"},
		{"Slot": 3, "Ports": 48, "Type": "1/10 Gbps Ethernet Module", "Model": "N7K-F248XP-25", "Status": "ok"},
	}
	out, err := json.Marshal(topo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Up(context.Background(), dir, Options{})
	if err == nil {
		_ = l.Close()
		t.Fatal("the lab came up with a Supervisor 2 on NX-OS 5.1(3)")
	}
	for _, want := range []string{"n7k-1", "NX-OS 5.1(3) cannot run on this switch", "Supervisor 2 (N7K-SUP2 in slot 1) needs 6.1(1) or later"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
