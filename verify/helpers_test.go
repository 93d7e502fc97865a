package verify

import (
	"github.com/rocefabric/roce/internal/testenv"

	"os"
	"testing"
)

func requireRealPerftest(t *testing.T) {
	t.Helper()
	testenv.Tool(t, "ib_write_bw", "make deps-test installs Debian's perftest")
	if ents, err := os.ReadDir("/sys/class/infiniband"); err == nil && len(ents) > 0 {
		t.Skip("this machine has RDMA devices; the no-device path cannot be exercised")
	}
}
