package host

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
)

// The lab-host warning is one text for every lab host of a kind (no host
// or namespace name in it), so the plan renderers group it into a single
// "on 4 hosts: …" warning; a real host gets none.
func TestLabHostWarningIsTheSameOnEveryHost(t *testing.T) {
	lab := map[string]string{"backend.dcb": nics.BackendLab, "backend.netlink": "netlink"}
	emulatedLinks := map[string]string{"backend.dcb": nics.BackendLab, "backend.netlink": nics.BackendLab}
	real := map[string]string{"backend.dcb": "dcbnl", "backend.netlink": "netlink"}
	for _, tc := range []struct {
		name           string
		facts          map[string]string
		netnsA, netnsB string
		want           string
	}{
		{"namespaces", lab, "roce-lab-h1", "roce-lab-h2", "real netlink, inside the host's own network namespace"},
		{"no namespace", lab, "", "", "MTU and addresses are real netlink"},
		{"emulated links", emulatedLinks, "roce-lab-h1", "roce-lab-h2", "emulated too (no real interface)"},
		{"real host", real, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := labHostWarning(tc.facts, tc.netnsA), labHostWarning(tc.facts, tc.netnsB)
			if a != b {
				t.Errorf("warnings differ between hosts:\n%s\n%s", a, b)
			}
			if tc.want == "" {
				if a != "" {
					t.Errorf("real host warned: %q", a)
				}
				return
			}
			if !strings.Contains(a, tc.want) || !strings.HasPrefix(a, "lab host: ") {
				t.Errorf("warning = %q, want it to contain %q", a, tc.want)
			}
			if tc.netnsA != "" && strings.Contains(a, tc.netnsA) {
				t.Errorf("warning names the namespace, so it cannot be grouped: %q", a)
			}
		})
	}
}
