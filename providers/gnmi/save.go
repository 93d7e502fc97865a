package gnmi

import (
	"fmt"

	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
)

// Saving the configuration (docs/gnmi-profiles.md#saving-the-configuration).
// A gNMI Set changes the running configuration. Whether it also persists
// across a reboot is not settled by the gNMI specification (an open
// question in openconfig/reference#192), and neither gNMI nor gNOI has a
// standard "save" operation roce could call. On the profiles roce supports
// the change is not saved unless the operator saves it (Arista EOS: the
// running-config until `copy running-config startup-config`, unless the
// switch is set to persist gNMI Sets; SONiC: CONFIG_DB until `config
// save`; SR Linux: the running datastore until `tools system
// configuration save`). So roce does not save: after an applied Set
// the report names the command to run on the switch.

// saveWarning is the warning an applied target carries: the change is not
// saved, and how to save it.
func (t *target) saveWarning() string {
	name := t.sw.Profile
	if t.prof != nil {
		name = t.prof.Name()
	}
	how := "with the switch's own save command"
	if caps, ok := platforms.Default().Lookup(policies.PlatformGNMI, name); ok && caps.SaveCommand != "" {
		how = fmt.Sprintf("with `%s` on the switch", caps.SaveCommand)
	}
	why := "gNMI has no standard save operation, so roce does not save"
	if t.sw.SaveConfig == policies.SaveConfigNever {
		why = `save_config = "never"`
	}
	return fmt.Sprintf("not saved (%s): the change is in the running configuration only, and the next reboot or upgrade may drop it; save it %s (docs/gnmi-profiles.md#saving-the-configuration)", why, how)
}
