package gnmi_test

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// An applied target says that gNMI did not save the change and names the
// profile's save command; a rolled-back one does not.
func TestAppliedTargetNamesTheSaveCommand(t *testing.T) {
	for _, tc := range []struct {
		profile, save, want string
	}{
		{profile: policies.ProfileArista, want: "`copy running-config startup-config`"},
		{profile: policies.ProfileSONiC, want: "`sudo config save -y`"},
		{profile: policies.ProfileSRLinux, want: "`tools system configuration save`"},
		{profile: policies.ProfileSRLinux, save: policies.SaveConfigNever, want: `not saved (save_config = "never")`},
	} {
		t.Run(tc.profile+"-"+tc.save, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, cosClass())
			l.sw.SaveConfig = tc.save
			_, res := planApply(ctxT(t), t, l.target(t, gnmi.Options{}))
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.want) || !strings.Contains(res.Warnings[0], "not saved") {
				t.Fatalf("warnings %q, want one naming %s", res.Warnings, tc.want)
			}
		})
	}
}
