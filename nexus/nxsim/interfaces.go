package nxsim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// expandInterfaces turns an NX-OS interface list ("Ethernet1/1-4,
// Ethernet1/7", "e1/1 - 2", "eth1/3") into canonical names, in order. A
// part starting with a digit reuses the previous part's type. Every name
// must be an interface of this switch.
func (sw *Switch) expandInterfaces(list string) ([]string, error) {
	var out []string
	prefix := ""
	for _, part := range strings.Split(list, ",") {
		part = strings.ReplaceAll(strings.TrimSpace(part), " ", "")
		if part == "" {
			continue
		}
		if part[0] >= '0' && part[0] <= '9' {
			part = prefix + part
		}
		first, last := part, ""
		if i := strings.LastIndexByte(part, '-'); i > 0 && !strings.HasSuffix(strings.ToLower(part[:i]), "port") {
			first, last = part[:i], part[i+1:]
		}
		name, ok := nexus.CanonicalInterface(first)
		if !ok {
			return nil, fmt.Errorf("ERROR: %q is not an interface name", part)
		}
		prefix = name[:strings.IndexAny(name, "0123456789")]
		if last == "" {
			out = append(out, name)
			continue
		}
		slash := strings.LastIndexByte(name, '/')
		lo, err1 := strconv.Atoi(name[slash+1:])
		hi, err2 := strconv.Atoi(last)
		if slash < 0 || err1 != nil || err2 != nil || hi < lo || hi-lo > 1024 {
			return nil, fmt.Errorf("ERROR: %q is not an interface range", part)
		}
		for p := lo; p <= hi; p++ {
			out = append(out, name[:slash+1]+strconv.Itoa(p))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ERROR: no interface given")
	}
	for _, n := range out {
		if !sw.hasInterface(n) {
			return nil, fmt.Errorf("ERROR: interface %s does not exist on this switch", n)
		}
	}
	return out, nil
}

// hasInterface reports whether the switch has the interface: one of its
// ports, or a logical interface present in the running config.
func (sw *Switch) hasInterface(name string) bool {
	if slices.Contains(sw.interfaces, name) {
		return true
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.cfg.Interface(name) != nil
}
