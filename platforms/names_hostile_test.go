package platforms

import (
	"strings"
	"testing"
)

// Names a policy can give that the kernel accepts but that would change
// meaning in a file roce writes for the host to run as root later: '#'
// starts a comment in the iproute2 batch file of persisted DCB (`dcb -b`),
// '%' is a specifier in the tmpfiles.d file of persisted rdma_cm defaults.
// Control characters (terminal escapes in plan output, a line break in a
// host file) are refused in both. Each is refused, naming the character, the file and the next step;
// udev and shell metacharacters, which reach no shell and which udev does
// not expand in a substituted value, stay accepted (docs/security.md).
func TestHostileHostNames(t *testing.T) {
	for _, tc := range []struct {
		check      func(string) error
		name, want string // want "" = accepted
	}{
		{CheckNetdevName, "eth0#x", "'#', which starts a comment in the dcb batch file"},
		{CheckNetdevName, "#", "'#'"},
		{CheckNetdevName, "e\x1b[2J", "control character"},
		{CheckNetdevName, "e\x03", "control character"},
		{CheckNetdevName, "e\x7f", "control character"},
		{CheckNetdevName, "e$name", ""},
		{CheckNetdevName, "%k", ""},
		{CheckNetdevName, "a;b|c`d`", ""},
		{CheckRDMADeviceName, "mlx5_%H", "'%', a specifier in the tmpfiles.d file"},
		{CheckRDMADeviceName, "%%", "'%'"},
		{CheckRDMADeviceName, "mlx5\x1b]0;x\x07", "control character"},
		{CheckRDMADeviceName, "mlx5#0", ""},
		{CheckRDMADeviceName, "rxe$kernel", ""},
	} {
		err := tc.check(tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q refused: %v", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("%q accepted; want an error with %q", tc.name, tc.want)
		case tc.want != "" && (!strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rename")):
			t.Errorf("%q: error %q lacks %q or the next step", tc.name, err, tc.want)
		}
	}
}
