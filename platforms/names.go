package platforms

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Names from a policy end up in device configuration (interface names,
// class-map names, gNMI path keys, CONFIG_DB keys), in Linux paths (netdev
// and RDMA device names under /sys) and in every plan and report. Each kind
// of name has one rule here, per platform, used by validation (so a bad
// name fails at `roce-plan validate`, naming file:line) and by the
// renderers and providers before anything is sent, so the two can never
// disagree.

// MaxInterfaceName bounds any switch interface name: far above every real
// one (the longest in the reference configurations is under 20), and what
// stops a 5,000-character name reaching a device.
const MaxInterfaceName = 64

// interfaceRules are the interface names each switch kind has: a name of
// another shape does not exist on that platform. Sources: Cisco NX-OS
// interface configuration guides (Ethernet<slot>/<port>, FEX
// Ethernet<fex>/<slot>/<port>); Arista EOS (Ethernet<n>[/<lane>], modular
// Ethernet<slot>/<port>[/<lane>]); SONiC CONFIG_DB PORT keys (Ethernet<n>);
// Nokia SR Linux (ethernet-<slot>/<port>[/<breakout>]).
var interfaceRules = map[string]struct {
	re       *regexp.Regexp
	platform string // how the error names the platform's ports
	like     string
}{
	"nexus5000":       {regexp.MustCompile(`^Ethernet[0-9]{1,3}(/[0-9]{1,3}){1,2}$`), "Nexus 5000", "Ethernet1/1 or Ethernet101/1/1"},
	"nexus7000":       {regexp.MustCompile(`^Ethernet[0-9]{1,3}(/[0-9]{1,3}){1,2}$`), "Nexus 7000", "Ethernet1/1 or Ethernet101/1/1"},
	"gnmi/arista":     {regexp.MustCompile(`^Ethernet[0-9]{1,4}(/[0-9]{1,3}){0,2}$`), "Arista EOS", "Ethernet1, Ethernet1/1 or Ethernet3/1/1"},
	"gnmi/sonic":      {regexp.MustCompile(`^Ethernet[0-9]{1,4}$`), "SONiC", "Ethernet0"},
	"gnmi/srlinux":    {regexp.MustCompile(`^ethernet-[0-9]{1,2}/[0-9]{1,3}(/[0-9]{1,2})?$`), "SR Linux", "ethernet-1/1 or ethernet-1/3/1"},
	"gnmi/openconfig": {regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./:-]*$`), "OpenConfig", "Ethernet1/1, et-0/0/1 or swp1 (letters, digits, '/', '.', ':', '_', '-')"},
}

// CheckInterfaceName is the one rule for a switch interface name, applied
// by validation (so a bad name fails at `roce-plan validate`, naming
// file:line) and by the gNMI profiles when they render a plan (so a caller
// that skipped validation gets the same verdict, and nothing reaches a
// path). It refuses a name kind ("nexus5000", "nexus7000",
// "gnmi/<profile>") has no port of: empty, longer than MaxInterfaceName, a
// wildcard ('*'), quote, bracket, path or key delimiter, control
// character, non-ASCII character or white space, or of another shape than
// the platform's ports. The error says what the platform's names look
// like. An unknown kind gets the generic (OpenConfig) rule.
func CheckInterfaceName(kind, name string) error {
	rule, ok := interfaceRules[kind]
	if !ok {
		rule = interfaceRules["gnmi/openconfig"]
	}
	switch {
	case name == "":
		return fmt.Errorf("empty interface name; %s port names look like %s", rule.platform, rule.like)
	case len(name) > MaxInterfaceName:
		return fmt.Errorf("interface name of %d characters (%s...) is longer than %d; no %s port has such a name: they look like %s", len(name), strconv.Quote(name[:16]), MaxInterfaceName, kind, rule.like)
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return fmt.Errorf("interface name %s holds a control character (%q), which a device would read as the end of a command or a different name; name one port, like %s", strconv.Quote(name), r, rule.like)
		case r > 0x7f:
			return fmt.Errorf("interface name %s holds a non-ASCII character; name one port, like %s", strconv.Quote(name), rule.like)
		}
	}
	if strings.ContainsAny(name, "*?[]{}=|\\\"' ") {
		return fmt.Errorf("interface name %s holds a wildcard, quote, bracket, delimiter or white space, which a device would read as a pattern or a path; name one port, like %s", strconv.Quote(name), rule.like)
	}
	if !rule.re.MatchString(name) {
		return fmt.Errorf("interface name %s is not a %s port name: %s port names look like %s", strconv.Quote(name), kind, rule.platform, rule.like)
	}
	return nil
}

// targetNameRe is a switch or host name in the policy: it becomes the plan
// address (switch.NAME, host.NAME), a -target selector, a file name in
// captures and reports, and a label on devices.
var targetNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// MaxTargetName bounds switch and host names (a DNS label is at most 63).
const MaxTargetName = 63

// CheckTargetName refuses a switch or host name that is empty, longer than
// MaxTargetName, or holds anything but letters, digits, '.', '_' and '-'
// (starting with a letter or digit).
func CheckTargetName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty name")
	case len(name) > MaxTargetName:
		return fmt.Errorf("name of %d characters is longer than %d", len(name), MaxTargetName)
	case !targetNameRe.MatchString(name):
		return fmt.Errorf("name %s may hold only letters, digits, '.', '_' and '-', starting with a letter or digit (it becomes the plan address and a -target selector)", strconv.Quote(name))
	}
	return nil
}

// MaxClassName bounds a lossless class name: it becomes part of NX-OS
// class-map and policy-map names (at most 40 characters with roce's
// prefix) and of gNMI list keys.
const MaxClassName = 32

var classNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// CheckClassName refuses a lossless class name a device could not take as
// an object name (NX-OS class-map/policy-map, SONiC and SR Linux keys).
func CheckClassName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty class name")
	case len(name) > MaxClassName:
		return fmt.Errorf("class name of %d characters is longer than %d (it becomes part of device object names)", len(name), MaxClassName)
	case !classNameRe.MatchString(name):
		return fmt.Errorf("class name %s may hold only letters, digits, '.', '_' and '-' (it becomes a device object name)", strconv.Quote(name))
	}
	return nil
}

// MaxNetdevName is the longest Linux network device name (IFNAMSIZ - 1).
const MaxNetdevName = 15

// CheckNetdevName applies the kernel's rule for network device names
// (dev_valid_name: 1-15 bytes, not "." or "..", no '/', ':' or white
// space), so a name that would fail at `ip link` or escape a /sys path
// fails at validate instead. It also refuses '#', which the kernel allows
// but which starts a comment in the iproute2 batch files roce persists a
// host's DCB in (`dcb -b`: iproute2's lib/utils.c getcmdline cuts each
// line at its first '#'), so `pfc set dev eth0#x …` would run as
// `pfc set dev eth0` (docs/security.md).
func CheckNetdevName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty network device name")
	case len(name) > MaxNetdevName:
		return fmt.Errorf("network device name %s is longer than %d bytes (the kernel's limit)", strconv.Quote(name), MaxNetdevName)
	case name == "." || name == "..":
		return fmt.Errorf("network device name %s is not allowed", strconv.Quote(name))
	case strings.ContainsAny(name, "/:*?\"'\\ \t\r\n\v\f\x00"):
		return fmt.Errorf("network device name %s holds '/', ':', a wildcard, a quote or white space, which the kernel refuses", strconv.Quote(name))
	case strings.IndexFunc(name, isControl) >= 0:
		return fmt.Errorf("network device name %s holds a control character, which would reach terminals, logs and host files raw; rename the netdev (ip link set NAME name NEW) or leave it out of the policy", strconv.Quote(name))
	case strings.Contains(name, "#"):
		return fmt.Errorf("network device name %s holds '#', which starts a comment in the dcb batch file roce persists the netdev's DCB in; rename the netdev (ip link set NAME name NEW) or leave it out of the policy", strconv.Quote(name))
	}
	return nil
}

// isControl reports an ASCII control character (C0 or DEL): the kernel
// takes them in a device name, but printed raw they are terminal escapes,
// and in a host file a line break.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// MaxRDMADeviceName is the longest RDMA device name (IB_DEVICE_NAME_MAX - 1).
const MaxRDMADeviceName = 63

// CheckRDMADeviceName is the rule for RDMA device names such as mlx5_0:
// they become /sys/class/infiniband/<dev> and configfs paths, and the
// paths of the tmpfiles.d lines roce persists rdma_cm defaults in, where
// systemd-tmpfiles expands '%' specifiers (tmpfiles.d(5), "Specifiers"),
// so a name with '%' is refused: `w .../mlx5_%H/...` would name another
// path.
func CheckRDMADeviceName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty RDMA device name")
	case len(name) > MaxRDMADeviceName:
		return fmt.Errorf("RDMA device name of %d characters is longer than %d", len(name), MaxRDMADeviceName)
	case name == "." || name == "..", strings.ContainsAny(name, "/:*?\"'\\ \t\r\n\v\f\x00"):
		return fmt.Errorf("RDMA device name %s would not be a single /sys path element", strconv.Quote(name))
	case strings.IndexFunc(name, isControl) >= 0:
		return fmt.Errorf("RDMA device name %s holds a control character, which would reach terminals, logs and host files raw; rename the device (rdma dev set NAME name NEW) or leave it out of the policy", strconv.Quote(name))
	case strings.Contains(name, "%"):
		return fmt.Errorf("RDMA device name %s holds '%%', a specifier in the tmpfiles.d file roce persists rdma_cm defaults in; rename the device (rdma dev set NAME name NEW) or leave it out of the policy", strconv.Quote(name))
	}
	return nil
}

// MaxVDCName is the longest Nexus 7000 VDC name (Cisco Nexus 7000 Series
// Virtual Device Context Configuration Guide: up to 32 alphanumeric
// characters).
const MaxVDCName = 32

var vdcNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckVDCName refuses a VDC name no Nexus 7000 can have.
func CheckVDCName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty VDC name")
	case len(name) > MaxVDCName:
		return fmt.Errorf("VDC name of %d characters is longer than %d", len(name), MaxVDCName)
	case !vdcNameRe.MatchString(name):
		return fmt.Errorf("VDC name %s may hold only letters, digits, '_' and '-'", strconv.Quote(name))
	}
	return nil
}
