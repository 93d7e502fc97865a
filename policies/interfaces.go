package policies

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// maxInterfacesPerRange bounds one range item, so "Ethernet1/1-99999999" is
// an error instead of a huge slice. No switch has more ports on one module.
const maxInterfacesPerRange = 4096

// nxosInterface matches one NX-OS Ethernet interface or range item: slot/port
// (Ethernet1/1), FEX or breakout slot/sub/port (Ethernet101/1/1), with an
// optional range on the last number (Ethernet1/1-32). NX-OS accepts the
// abbreviations "eth" and "e", which we canonicalise to "Ethernet".
var nxosInterface = regexp.MustCompile(`(?i)^(?:ethernet|eth|e)\s*(\d+(?:/\d+){1,2})(?:\s*-\s*(\d+))?$`)

// genericInterface matches a gNMI interface name with an optional numeric
// range at its end: "Ethernet1/1-4" (Arista), "Ethernet0" (SONiC),
// "ethernet-1/1-32" (SR Linux).
var genericInterface = regexp.MustCompile(`^(.*?)(\d+)(?:-(\d+))?$`)

// ExpandInterfaces expands an NX-OS interface list such as
// "Ethernet1/1-32" or "Ethernet1/1,Ethernet2/3-4" or "Ethernet101/1/1-4"
// (FEX) into single interfaces, canonicalising "eth1/1"/"Eth1/1" to
// "Ethernet1/1". Duplicates are an error: they usually mean two ranges
// overlap by mistake.
func ExpandInterfaces(spec string) ([]string, error) {
	return expandList(spec, expandNXOSItem)
}

// expandGenericInterfaces expands gNMI interface names, where the range is
// on the trailing number and names are kept as written (vendors differ).
func expandGenericInterfaces(spec string) ([]string, error) {
	return expandList(spec, expandGenericItem)
}

func expandList(spec string, item func(string) ([]string, error)) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty item in interface list %q", spec)
		}
		names, err := item(part)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if seen[n] {
				return nil, fmt.Errorf("interface %s is listed twice in %q", n, spec)
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

func expandNXOSItem(item string) ([]string, error) {
	m := nxosInterface.FindStringSubmatch(item)
	if m == nil {
		return nil, fmt.Errorf("%q is not an NX-OS Ethernet interface; write Ethernet<slot>/<port>, a range such as Ethernet1/1-32, or a FEX port such as Ethernet101/1/1", item)
	}
	parts := strings.Split(m[1], "/")
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxInterfacesPerRange {
			return nil, fmt.Errorf("%q: %q is not a slot or port number (1-%d)", item, p, maxInterfacesPerRange)
		}
		nums[i] = n
	}
	prefix := "Ethernet"
	for _, n := range nums[:len(nums)-1] {
		prefix += strconv.Itoa(n) + "/"
	}
	return expandRange(item, prefix, nums[len(nums)-1], m[2])
}

func expandGenericItem(item string) ([]string, error) {
	m := genericInterface.FindStringSubmatch(item)
	if m == nil {
		return []string{item}, nil
	}
	if m[3] == "" {
		return []string{item}, nil
	}
	lo, err := strconv.Atoi(m[2])
	if err != nil || lo > maxInterfacesPerRange {
		return nil, fmt.Errorf("%q: %q is not a port number (0-%d)", item, m[2], maxInterfacesPerRange)
	}
	return expandRange(item, m[1], lo, m[3])
}

// expandRange returns prefix+lo ... prefix+hi, or just prefix+lo when hiText
// is empty.
func expandRange(item, prefix string, lo int, hiText string) ([]string, error) {
	hi := lo
	if hiText != "" {
		n, err := strconv.Atoi(hiText)
		if err != nil || n > maxInterfacesPerRange {
			return nil, fmt.Errorf("%q: range end %q is not a port number (up to %d)", item, hiText, maxInterfacesPerRange)
		}
		if n < lo {
			return nil, fmt.Errorf("%q: range end %d is below its start %d; write the lower port first", item, n, lo)
		}
		hi = n
	}
	out := make([]string, 0, hi-lo+1)
	for p := lo; p <= hi; p++ {
		out = append(out, prefix+strconv.Itoa(p))
	}
	return out, nil
}
