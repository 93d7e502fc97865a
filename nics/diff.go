package nics

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocefabric/roce/plan"
)

// Diff compares a current state with the resolved desired state and returns
// the changes, in apply order. Only what desired names is compared; foreign
// addresses, APP entries of other selectors, and file lines we don't own are
// never reported.
func Diff(current, desired *HostState) []plan.Change {
	var out []plan.Change
	curNIC := map[string]NICState{}
	for _, n := range current.NICs {
		curNIC[n.Netdev] = n
	}
	for _, w := range desired.NICs {
		out = append(out, diffNIC(curNIC[w.Netdev], w)...)
	}
	curCM := map[string]RDMACMState{}
	for _, c := range current.RDMACM {
		curCM[fmt.Sprintf("%s/%d", c.Device, c.Port)] = c
	}
	for _, w := range desired.RDMACM {
		out = append(out, diffRDMACM(curCM[fmt.Sprintf("%s/%d", w.Device, w.Port)], w)...)
	}
	curF := map[string]FileState{}
	for _, f := range current.Files {
		curF[f.Path] = f
	}
	for _, w := range desired.Files {
		if c, ok := diffFile(curF[w.Path], w); ok {
			out = append(out, c)
		}
	}
	return out
}

func diffNIC(cur, w NICState) []plan.Change {
	var out []plan.Change
	addr := "nic." + w.Netdev
	if w.DCB != nil {
		cd := cur.DCB
		if cd == nil {
			cd = &DCBState{Trust: "pcp"}
		}
		if w.DCB.DCBX&DCBXHost != 0 && cd.DCBX&DCBXHost == 0 {
			out = append(out, plan.Change{Address: addr + ".dcbx", Action: plan.ActionUpdate,
				Before: DCBXString(cd.DCBX), After: DCBXString(dcbxTarget(cd.DCBX)), Disrupt: plan.DisruptionNone,
				Note: "settings pushed from the host need OS-controlled DCBX"})
		}
		if cd.PFCEnabled != w.DCB.PFCEnabled {
			out = append(out, plan.Change{Address: addr + ".pfc", Action: plan.ActionUpdate,
				Before: PFCString(cd.PFCEnabled), After: PFCString(w.DCB.PFCEnabled), Disrupt: plan.DisruptionLink,
				Note: "mlx5 toggles the port link when pfc_en changes"})
		}
		if !sameApps(cd.DSCPApps, w.DCB.DSCPApps) {
			out = append(out, plan.Change{Address: addr + ".trust", Action: plan.ActionUpdate,
				Before: TrustString(cd), After: TrustString(w.DCB), Disrupt: plan.DisruptionBrief,
				Note: "the first DSCP APP entry switches mlx5 to DSCP trust, removing the last switches back to PCP"})
		}
	}
	if w.MTU > 0 && cur.MTU != w.MTU {
		out = append(out, plan.Change{Address: addr + ".mtu", Action: plan.ActionUpdate,
			Before: fmt.Sprintf("mtu %d", cur.MTU), After: fmt.Sprintf("mtu %d", w.MTU), Disrupt: plan.DisruptionLink})
	}
	if miss := missing(cur.Addresses, w.Addresses); len(miss) > 0 {
		out = append(out, plan.Change{Address: addr + ".address", Action: plan.ActionCreate,
			Before: strings.Join(cur.Addresses, " "), After: strings.Join(miss, " "), Disrupt: plan.DisruptionNone})
	}
	if w.VLAN != nil {
		cv := cur.VLAN
		if cv == nil {
			cv = &VLANState{}
		}
		if !vlanEqual(*cv, *w.VLAN) {
			c := plan.Change{Address: fmt.Sprintf("%s.vlan%d", addr, w.VLAN.ID), Action: plan.ActionUpdate,
				After: VLANString(*w.VLAN), Disrupt: plan.DisruptionLink}
			if cv.Exists {
				c.Before = VLANString(*cv)
			} else {
				c.Action = plan.ActionCreate
			}
			out = append(out, c)
		}
	}
	return out
}

// dcbxTarget is the DCBX mode we set: OS-controlled, keeping the version
// bits, IEEE when none is set (what mlnx_qos --dcbx os does).
func dcbxTarget(cur uint8) uint8 {
	m := (cur &^ DCBXLLDManaged) | DCBXHost
	if m&(DCBXVerIEEE|DCBXVerCEE) == 0 {
		m |= DCBXVerIEEE
	}
	return m
}

func vlanEqual(c, w VLANState) bool {
	if !c.Exists || c.ID != w.ID || c.Parent != w.Parent {
		return false
	}
	if w.MTU > 0 && c.MTU != w.MTU {
		return false
	}
	for p := uint32(0); p < 8; p++ {
		if c.EgressQoS[p] != w.EgressQoS[p] {
			return false
		}
	}
	return len(missing(c.Addresses, w.Addresses)) == 0
}

func missing(have, want []string) []string {
	h := map[string]bool{}
	for _, a := range have {
		h[canonicalCIDR(a)] = true
	}
	var out []string
	for _, a := range want {
		if !h[canonicalCIDR(a)] {
			out = append(out, a)
		}
	}
	return out
}

func sameApps(a, b []DSCPApp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func diffRDMACM(cur, w RDMACMState) []plan.Change {
	var out []plan.Change
	base := "rdma_cm." + w.Device
	switch w.Method {
	case RDMACMConfigfs:
		if cur.ToS != w.ToS {
			out = append(out, plan.Change{Address: base + ".tos", Action: plan.ActionUpdate,
				Before: fmt.Sprintf("default_roce_tos %d", cur.ToS), After: fmt.Sprintf("default_roce_tos %d", w.ToS),
				Disrupt: plan.DisruptionNone, Note: "configfs; applies to rdma_cm QPs created afterwards"})
		}
		if cur.Mode != w.Mode {
			out = append(out, plan.Change{Address: base + ".mode", Action: plan.ActionUpdate,
				Before: fmt.Sprintf("default_roce_mode %q", cur.Mode), After: fmt.Sprintf("default_roce_mode %q", w.Mode),
				Disrupt: plan.DisruptionNone})
		}
	case RDMACMDefPrec2SL:
		if cur.Prec2SL != w.Prec2SL {
			out = append(out, plan.Change{Address: base + ".def_prec2sl", Action: plan.ActionUpdate,
				Before: fmt.Sprintf("def_prec2sl %d", cur.Prec2SL), After: fmt.Sprintf("def_prec2sl %d", w.Prec2SL),
				Disrupt: plan.DisruptionNone, Note: "legacy OFED rdma_cm module parameter"})
		}
	}
	return out
}

func diffFile(cur, w FileState) (plan.Change, bool) {
	c := plan.Change{Address: "file:" + w.Path, Action: plan.ActionUpdate, Disrupt: plan.DisruptionNone}
	if !cur.Exists {
		c.Action = plan.ActionCreate
	}
	switch w.Format {
	case FormatLines:
		if cur.Exists && len(missing2(cur.Lines, w.Lines)) == 0 {
			return c, false
		}
		c.Before = strings.Join(cur.Lines, "\n")
		c.After = strings.Join(w.Lines, "\n")
	default:
		have := map[string]string{}
		for _, e := range cur.Entries {
			have[e.Key] = e.Value
		}
		same := cur.Exists
		var before, after []string
		for _, e := range w.Entries {
			v, ok := have[e.Key]
			want := e.Value
			if e.GID != nil && want == "" {
				want = fmt.Sprintf("<GID index of %s %s on %s, resolved during apply>", e.GID.IP, e.GID.RoCEMode, e.GID.Netdev)
				same = false
			}
			if !ok || v != e.Value {
				same = false
			}
			if ok {
				before = append(before, renderKV(w.Format, e.Key, v))
			}
			after = append(after, renderKV(w.Format, e.Key, want))
		}
		if same {
			return c, false
		}
		c.Before, c.After = strings.Join(before, "\n"), strings.Join(after, "\n")
	}
	return c, true
}

func missing2(have, want []string) []string {
	h := map[string]bool{}
	for _, a := range have {
		h[strings.TrimSpace(a)] = true
	}
	var out []string
	for _, a := range want {
		if !h[strings.TrimSpace(a)] {
			out = append(out, a)
		}
	}
	return out
}

// PFCString renders a pfc_en bitmap: "pfc_en 0x08 (priorities 3)".
func PFCString(b uint8) string {
	var p []string
	for i := 0; i < 8; i++ {
		if b&(1<<uint(i)) != 0 {
			p = append(p, fmt.Sprint(i))
		}
	}
	if len(p) == 0 {
		return fmt.Sprintf("pfc_en 0x%02x (off)", b)
	}
	return fmt.Sprintf("pfc_en 0x%02x (priorities %s)", b, strings.Join(p, ","))
}

// DCBXString renders a DCBX mode bitmap.
func DCBXString(m uint8) string {
	var p []string
	for _, f := range []struct {
		bit  uint8
		name string
	}{{DCBXHost, "host"}, {DCBXLLDManaged, "lld-managed"}, {DCBXVerCEE, "cee"}, {DCBXVerIEEE, "ieee"}, {DCBXStatic, "static"}} {
		if m&f.bit != 0 {
			p = append(p, f.name)
		}
	}
	if len(p) == 0 {
		return "dcbx 0x00 (firmware)"
	}
	return fmt.Sprintf("dcbx 0x%02x (%s)", m, strings.Join(p, " "))
}

// TrustString renders trust and the DSCP map.
func TrustString(d *DCBState) string {
	if len(d.DSCPApps) == 0 {
		return "trust pcp"
	}
	var p []string
	for _, a := range d.DSCPApps {
		p = append(p, fmt.Sprintf("%d:%d", a.DSCP, a.Priority))
	}
	return "trust dscp, dscp-prio " + strings.Join(p, " ")
}

// VLANString renders a VLAN device.
func VLANString(v VLANState) string {
	keys := make([]int, 0, 8)
	for k := range v.EgressQoS {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	var eg []string
	for _, k := range keys {
		eg = append(eg, fmt.Sprintf("%d:%d", k, v.EgressQoS[uint32(k)]))
	}
	s := fmt.Sprintf("%s link %s id %d egress-qos-map %s mtu %d", v.Name, v.Parent, v.ID, strings.Join(eg, " "), v.MTU)
	if len(v.Addresses) > 0 {
		s += " address " + strings.Join(v.Addresses, " ")
	}
	return s
}
