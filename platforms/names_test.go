package platforms

import (
	"strings"
	"testing"
)

func TestCheckInterfaceName(t *testing.T) {
	long := "Ethernet" + strings.Repeat("1", 5000)
	tests := []struct {
		kind, name string
		want       string // "" = accepted; else a substring of the error
	}{
		{"nexus5000", "Ethernet1/1", ""},
		{"nexus7000", "Ethernet101/1/1", ""},
		{"gnmi/arista", "Ethernet1", ""},
		{"gnmi/arista", "Ethernet3/1/1", ""},
		{"gnmi/sonic", "Ethernet0", ""},
		{"gnmi/srlinux", "ethernet-1/1", ""},
		{"gnmi/srlinux", "ethernet-1/3/1", ""},
		{"gnmi/openconfig", "et-0/0/1", ""},
		{"gnmi/openconfig", "swp1", ""},
		{"unknown-kind", "swp1", ""},
		// Hostile on every platform.
		{"gnmi/sonic", "*", "wildcard"},
		{"gnmi/openconfig", "*", "wildcard"},
		{"gnmi/arista", "Ethernet1\n", "control character ('\\n')"},
		{"gnmi/arista", "Ethernet 1", "white space"},
		{"gnmi/srlinux", "ethernet-1/1]/config", "wildcard"},
		{"gnmi/openconfig", "Ethernet1[name=x]", "wildcard"},
		{"gnmi/sonic", "Ethernet0|3", "delimiter"},
		{"gnmi/openconfig", long, "longer than 64"},
		{"nexus5000", long, "longer than 64"},
		{"gnmi/openconfig", "", "empty"},
		{"gnmi/openconfig", "eth\x01", "control"},
		{"gnmi/openconfig", "Éthernet1", "non-ASCII"},
		// Names of another platform's shape do not exist here.
		{"gnmi/sonic", "Ethernet1/1", "not a gnmi/sonic port name: SONiC port names look like Ethernet0"},
		{"gnmi/sonic", "Ethernet12345", "not a gnmi/sonic port name"},
		{"gnmi/srlinux", long, "longer than 64; no gnmi/srlinux port has such a name: they look like ethernet-1/1"},
		{"gnmi/arista", "", "empty interface name; Arista EOS port names look like Ethernet1"},
		{"gnmi/srlinux", "Ethernet0", "not a gnmi/srlinux port name"},
		{"gnmi/arista", "ethernet-1/1", "not a gnmi/arista port name"},
		{"nexus5000", "Ethernet1", "not a nexus5000 port name"},
		{"gnmi/openconfig", "1/1", "not a gnmi/openconfig port name"},
	}
	for _, tc := range tests {
		err := CheckInterfaceName(tc.kind, tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %q: %v", tc.kind, tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %q: err = %v, want one containing %q", tc.kind, tc.name, err, tc.want)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%s: the error quotes the whole hostile name (%d bytes)", tc.kind, len(err.Error()))
		}
	}
}

func TestCheckOtherNames(t *testing.T) {
	tests := []struct {
		check func(string) error
		name  string
		ok    bool
	}{
		{CheckTargetName, "leaf01", true}, {CheckTargetName, "node-01.rack2", true},
		{CheckTargetName, "", false}, {CheckTargetName, "a b", false}, {CheckTargetName, "x\ny", false},
		{CheckTargetName, "-leading", false}, {CheckTargetName, strings.Repeat("a", 64), false},
		{CheckClassName, "rocev2", true}, {CheckClassName, "roce.v2_lossless", true},
		{CheckClassName, "ro ce", false}, {CheckClassName, "a|b", false}, {CheckClassName, strings.Repeat("c", 33), false},
		{CheckNetdevName, "ens1f0np0", true}, {CheckNetdevName, "eth0.100", true},
		{CheckNetdevName, "ens1f0np01.1000", true}, {CheckNetdevName, "ens1f0np012.1000", false},
		{CheckNetdevName, "..", false}, {CheckNetdevName, "a/b", false}, {CheckNetdevName, "a:b", false}, {CheckNetdevName, "eth 0", false},
		{CheckVDCName, "N7K1", true}, {CheckVDCName, "default", true}, {CheckVDCName, "a b", false},
		{CheckVDCName, "x\nswitchto vdc y", false}, {CheckVDCName, strings.Repeat("v", 33), false},
		{CheckRDMADeviceName, "mlx5_0", true}, {CheckRDMADeviceName, "../x", false}, {CheckRDMADeviceName, "", false},
	}
	for _, tc := range tests {
		if err := tc.check(tc.name); (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
