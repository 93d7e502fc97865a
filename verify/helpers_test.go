package verify

import (
	"os"
	"os/exec"
	"testing"
)

func requireRealPerftest(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ib_write_bw"); err != nil {
		t.Skip("ib_write_bw not installed (make deps-test installs Debian's perftest)")
	}
	if ents, err := os.ReadDir("/sys/class/infiniband"); err == nil && len(ents) > 0 {
		t.Skip("this machine has RDMA devices; the no-device path cannot be exercised")
	}
}
