package gnmi_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// Validation (roce-plan validate, before any device is contacted) refuses
// a PFC watchdog outside the switch's limits, at the class's pfc_watchdog
// block: SONiC's detection_time 100-5000 ms (sonic-pfcwd.yang), so 50
// fails here instead of at apply.
func TestValidateRefusesWatchdogOutsideDeviceLimits(t *testing.T) {
	policy := func(detection int) string {
		return `lossless "rocev2" {
  dscp     = [26]
  priority = 3
  pfc_watchdog {
    detection_ms   = ` + strconv.Itoa(detection) + `
    restoration_ms = 400
    action         = "drop"
  }
}
credentials "lab" {
  username     = "admin"
  password_env = "GNMI_PASSWORD"
}
switch "sonic-1" {
  platform    = "gnmi"
  profile     = "sonic"
  address     = "127.0.0.1:1"
  credentials = "lab"
  interfaces  = ["Ethernet0"]
}
`
	}
	load := func(src string) (string, bool) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, diags := policies.Load(dir, policies.LoadOptions{Getenv: func(string) (string, bool) { return "", false }})
		return diags.Error(), diags.HasErrors()
	}
	if msg, bad := load(policy(50)); !bad || !strings.Contains(msg, "detection time of 100-5000 ms, not 50") || !strings.Contains(msg, "main.hcl:4") {
		t.Errorf("detection_ms = 50 on a SONiC switch: errors %v: %s", bad, msg)
	}
	if msg, bad := load(policy(200)); bad {
		t.Errorf("detection_ms = 200 refused: %s", msg)
	}
}
