package profiles

import (
	"fmt"
	"strconv"
	"strings"
)

// Model is a YANG module a profile's payloads need on the target, at the
// version roce validates them against (the vendor YANG pinned per profile,
// docs/gnmi-profiles.md#models-each-profile-is-validated-against).
type Model struct {
	Name         string
	Organization string
	Version      string
}

func (m Model) String() string {
	if m.Version == "" {
		return m.Name
	}
	return m.Name + " " + m.Version
}

// ModelName is the module name of an advertised model: SR Linux lists its
// modules as "urn:srl_nokia/qos:srl_nokia-qos" (namespace, colon, module
// name), other targets as the bare module name.
func ModelName(advertised string) string {
	if i := strings.LastIndexByte(advertised, ':'); i >= 0 {
		return advertised[i+1:]
	}
	return advertised
}

// ModelCheck is what a target's CapabilityResponse says about the models a
// profile needs.
type ModelCheck struct {
	// Missing are the needed models the target does not list.
	Missing []Model
	// Older are the needed models the target lists at an older version
	// than the pinned one: "openconfig-qos 2.0.0 (roce is validated
	// against 2.2.0)".
	Older []string
}

// CheckModels compares the models a target advertises with the ones the
// profile needs: by module name (ModelName), and by version where both
// versions are comparable (x.y.z, or YANG revision dates YYYY-MM-DD). A
// model advertised without a version (EOS lists some so) is not judged
// older.
func CheckModels(p Profile, advertised []Model) ModelCheck {
	have := map[string]Model{}
	for _, m := range advertised {
		have[ModelName(m.Name)] = m
	}
	var c ModelCheck
	for _, need := range p.Models() {
		got, ok := have[need.Name]
		if !ok {
			c.Missing = append(c.Missing, need)
			continue
		}
		if cmp, ok := compareVersions(got.Version, need.Version); ok && cmp < 0 {
			c.Older = append(c.Older, fmt.Sprintf("%s %s (roce is validated against %s)", need.Name, got.Version, need.Version))
		}
	}
	return c
}

// compareVersions orders two model versions of the same form: dotted
// numbers (OpenConfig's openconfig-version, SONiC's "0.1.0") or revision
// dates. ok is false when they are not comparable.
func compareVersions(a, b string) (int, bool) {
	if isDate(a) && isDate(b) {
		return strings.Compare(a, b), true
	}
	pa, oka := dotted(a)
	pb, okb := dotted(b)
	if !oka || !okb {
		return 0, false
	}
	for i := 0; i < len(pa) || i < len(pb); i++ {
		x, y := 0, 0
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1, true
			}
			return 1, true
		}
	}
	return 0, true
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, r := range s {
		if i != 4 && i != 7 && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func dotted(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	var out []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}
