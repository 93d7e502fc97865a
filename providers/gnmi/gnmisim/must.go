package gnmisim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// mustRule is one YANG must statement (an XPath expression goyang does
// not evaluate) written out for what the profiles meet. check returns the
// model's error-message for the first violation; the cite names the YANG
// statement, so a test can say which part of the vendor's model refused
// the payload.
type mustRule struct {
	cite  string
	check func(t tree) error
}

// violation formats a must failure as the InvalidArgument a target
// returns for a commit its model refuses.
func violation(r mustRule, err error) error {
	return status.Errorf(codes.InvalidArgument, "%v [%s]", err, r.cite)
}

// entries groups a tree's leaves by the list entry (or CONFIG_DB row) at
// depth len(pat) matching pat (names only, any keys; "*" any name), keyed
// by the entry path.
func entries(t tree, pat ...string) map[string]map[string]gpath.Leaf {
	out := map[string]map[string]gpath.Leaf{}
	for _, l := range t {
		if len(l.Path) <= len(pat) {
			continue
		}
		ok := true
		for i, n := range pat {
			if n != "*" && l.Path[i].Name != n {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		ent := l.Path[:len(pat)].String()
		if out[ent] == nil {
			out[ent] = map[string]gpath.Leaf{}
		}
		out[ent][gpath.Path(l.Path[len(pat):]).String()] = l
	}
	return out
}

func sortedEntries(m map[string]map[string]gpath.Leaf) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sonicMusts are the sonic-yang-models constraints across CONFIG_DB rows
// the sonic profile meets.
func sonicMusts() []mustRule {
	return []mustRule{{
		cite: `sonic-pfcwd.yang PFC_WD_LIST leaf detection_time, restoration_time { must "... current() >= current()/../../PFC_WD_LIST[ifname='GLOBAL']/POLL_INTERVAL" }`,
		check: func(t tree) error {
			p, _ := gpath.Parse("/CONFIG_DB/localhost/PFC_WD/GLOBAL/POLL_INTERVAL")
			pl, ok := t[p.Key()]
			if !ok {
				return nil
			}
			poll, _ := gpath.ScalarString(pl.Value)
			pollMS, err := strconv.Atoi(poll)
			if err != nil {
				return nil // its own type check reports it
			}
			rows := entries(t, "CONFIG_DB", "localhost", "PFC_WD", "*")
			for _, e := range sortedEntries(rows) {
				for _, f := range []string{"detection_time", "restoration_time"} {
					l, ok := rows[e]["/"+f]
					if !ok {
						continue
					}
					v, _ := gpath.ScalarString(l.Value)
					if ms, err := strconv.Atoi(v); err == nil && ms < pollMS {
						return fmt.Errorf("%s/%s: %s must be greater than or equal to POLL_INTERVAL (%d)", e, f, f, pollMS)
					}
				}
			}
			return nil
		},
	}, sonicWREDThresholds()}
}

// sonicWREDThresholds is sonic-wred-profile.yang's must on each colour's
// max threshold. XPath compares a number with an empty node-set as false,
// so a max threshold without its min fails it too, as libyang reports.
func sonicWREDThresholds() mustRule {
	return mustRule{
		cite: `sonic-wred-profile.yang WRED_PROFILE_LIST leaf green_max_threshold (and yellow_, red_) { must "(current() >= current()/../green_min_threshold)" }`,
		check: func(t tree) error {
			rows := entries(t, "CONFIG_DB", "localhost", "WRED_PROFILE", "*")
			for _, e := range sortedEntries(rows) {
				for _, c := range []string{"green", "yellow", "red"} {
					maxL, ok := rows[e]["/"+c+"_max_threshold"]
					if !ok {
						continue
					}
					maxS, _ := gpath.ScalarString(maxL.Value)
					mx, err := strconv.ParseUint(maxS, 10, 64)
					if err != nil {
						continue // its own type check reports it
					}
					var mn uint64
					minL, ok := rows[e]["/"+c+"_min_threshold"]
					if ok {
						minS, _ := gpath.ScalarString(minL.Value)
						mn, err = strconv.ParseUint(minS, 10, 64)
						if err != nil {
							continue
						}
					}
					if !ok || mx < mn {
						return fmt.Errorf("%s: %s%s max threshold must be greater than or equal to min threshold", e, strings.ToUpper(c[:1]), c[1:])
					}
				}
			}
			return nil
		},
	}
}

// srlMusts are the srl_nokia-qos.yang (v25.3.1) constraints on what the
// srlinux profile writes.
func srlMusts() []mustRule {
	return []mustRule{
		{
			cite: `srl_nokia-qos.yang grouping qos-subinterface-input-top: container classifiers { must 'string(../../interface-ref/subinterface) != ""' }`,
			check: func(t tree) error {
				qi := entries(t, "qos", "interfaces", "interface")
				for _, e := range sortedEntries(qi) {
					leaves := qi[e]
					_, sub := leaves["/interface-ref/subinterface"]
					for p := range leaves {
						if len(p) > len("/input/classifiers/") && p[:len("/input/classifiers/")] == "/input/classifiers/" && !sub {
							return fmt.Errorf("%s: Attachment of classifiers, not permitted for interfaces", e)
						}
					}
				}
				return nil
			},
		},
		{
			cite: `srl_nokia-qos.yang grouping pfc-interface: leaf pfc-mapping-profile { must 'string(../../interface-ref/subinterface) = ""' }, leaf pfc-enable { must '. = false() or string(../../interface-ref/subinterface) = ""' }`,
			check: func(t tree) error {
				qi := entries(t, "qos", "interfaces", "interface")
				for _, e := range sortedEntries(qi) {
					leaves := qi[e]
					if _, sub := leaves["/interface-ref/subinterface"]; !sub {
						continue
					}
					if _, ok := leaves["/pfc/pfc-mapping-profile"]; ok {
						return fmt.Errorf("%s: Attachment of pfc, not permitted for sub-interfaces", e)
					}
					if l, ok := leaves["/pfc/pfc-enable"]; ok && l.Value == true {
						return fmt.Errorf("%s: pfc cannot be enabled on sub-interfaces", e)
					}
				}
				return nil
			},
		},
	}
}
