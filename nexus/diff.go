package nexus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/plan"
)

// Diff returns per-resource changes and the whole ordered command script a
// switch accepts (configuration-mode lines, without "configure terminal" and
// "end"). Order: ACLs → class-maps → policy-maps (7000: qos copy first) →
// system qos → interfaces → deletions of policy-maps → class-maps → ACLs,
// so every object exists before it is used and is unused before it is
// deleted. Objects equal in both configs produce nothing.
func Diff(current, desired *Config, p Platform) ([]plan.Change, []string, error) {
	d := &differ{cur: current, des: desired, p: p, idx: newObjIndex(current, desired)}
	if err := d.checkRaw(); err != nil {
		return nil, nil, err
	}
	for _, k := range []ObjectKind{KindACL, KindClassMap, KindPolicyMap} {
		for _, o := range desired.Objects {
			if o.Kind == k {
				if err := d.upsert(o); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if err := d.systemQoS(); err != nil {
		return nil, nil, err
	}
	for _, o := range desired.Objects {
		if o.Kind == KindInterface {
			d.iface(o)
		}
	}
	for _, o := range current.Objects {
		if o.Kind == KindInterface && d.idx.get(o.id())[1] == nil {
			return nil, nil, fmt.Errorf("nexus: diff: the desired config drops %s; interfaces cannot be deleted", o.Key())
		}
	}
	for _, k := range []ObjectKind{KindPolicyMap, KindClassMap, KindACL} {
		for _, o := range current.Objects {
			if o.Kind == k && d.idx.get(o.id())[1] == nil {
				d.delete(o)
			}
		}
	}
	n := 0
	for _, c := range d.changes {
		n += len(c.Commands)
	}
	var script []string
	if n > 0 {
		script = make([]string, 0, n)
	}
	for _, c := range d.changes {
		script = append(script, c.Commands...)
	}
	return d.changes, script, nil
}

type differ struct {
	cur, des *Config
	idx      objIndex // by Key: [0] current, [1] desired, so large configs diff in linear time
	p        Platform
	changes  []plan.Change
}

// checkRaw refuses a desired config whose unmodelled lines differ: the diff
// only produces modelled commands, so such a difference could never apply.
func (d *differ) checkRaw() error {
	raw := func(c *Config) []*Object {
		var out []*Object
		for _, o := range c.Objects {
			if o.Kind == KindRaw {
				out = append(out, o)
			}
		}
		return out
	}
	if !slices.EqualFunc(raw(d.cur), raw(d.des), sameText) {
		return fmt.Errorf("nexus: diff: the desired config changes lines outside the QoS model (feature, hostname, ...); roce only changes ACLs, class-maps, policy-maps, system qos and interfaces")
	}
	return nil
}

func disruptionOf(k ObjectKind) plan.Disruption {
	switch k {
	case KindACL, KindClassMap:
		return plan.DisruptionNone // hitless
	case KindPolicyMap, KindSystemQoS:
		return plan.DisruptionBrief // queues re-programmed
	case KindInterface:
		return plan.DisruptionLink // PFC / flowcontrol renegotiation
	}
	return plan.DisruptionNone
}

func (d *differ) add(c plan.Change) {
	if d.changes == nil {
		d.changes = make([]plan.Change, 0, 8) // a Change is large: start where a typical switch ends
	}
	d.changes = append(d.changes, c)
}

// upsert emits create or update commands for an ACL, class-map or policy-map.
func (d *differ) upsert(o *Object) error {
	cur := d.idx.get(o.id())[0]
	if cur != nil && sameText(cur, o) {
		return nil
	}
	ch := plan.Change{Address: o.Key(), After: o.String(), Disrupt: disruptionOf(o.Kind), Action: plan.ActionCreate}
	base := &Object{Kind: o.Kind, Type: o.Type, Name: o.Name, Match: o.Match}
	if cur != nil {
		ch.Action, ch.Before, base = plan.ActionUpdate, cur.String(), cur
		ch.Drift = true
		ch.Note = fmt.Sprintf("%s differs from what roce renders: %s — an earlier policy, a manual edit or a firmware upgrade changed it; applying restores it", o.Key(), describe(cur, o))
	}
	if o.Kind == KindPolicyMap && o.Type == TypeNetworkQoS && d.p.Is7000() && cur == nil {
		tpl, ok := templateOfCopy(o.Name)
		if !ok {
			return fmt.Errorf("nexus: diff: network-qos policy-map %s is not named after a default-nq template copy; on the 7000 it can only be made with qos copy", o.Name)
		}
		prefix := strings.TrimSuffix(o.Name, tpl.Short())
		ch.Commands = append(ch.Commands, "qos copy policy-map type network-qos "+tpl.Name+" prefix "+prefix)
		base = tpl.policy(o.Name)
		ch.Note = "copied from template " + tpl.Name + " (the 7000 builds network-qos only from templates, docs/nxos.md#qos)"
	}
	if cur != nil && o.Kind == KindClassMap && cur.Match != o.Match && o.Match != "" && cur.Match != "" {
		return fmt.Errorf("nexus: diff: %s changes from %s to %s, which NX-OS cannot do in place", o.Key(), cur.Match, o.Match)
	}
	body := bodyCommands(base, o)
	if len(body) == 0 && len(ch.Commands) > 0 {
		d.add(ch) // a template copy that needs no edit
		return nil
	}
	header := ch.Address // an ACL's or policy-map's header is its Key: one string, not two
	if o.Kind != KindACL && o.Kind != KindPolicyMap {
		header = headerCommand(o)
	}
	ch.Commands = append(ch.Commands, header)
	ch.Commands = append(ch.Commands, body...)
	d.add(ch)
	return nil
}

// headerCommand is the line that enters the object's sub-mode.
func headerCommand(o *Object) string {
	return o.canonicalHeader()
}

// bodyCommands turns base into o inside the object's sub-mode: removals
// first ("no ..."), then the lines that are new or changed, in o's order —
// the same edit the Editor performs, so the result equals o.
func bodyCommands(base, o *Object) []string {
	var cmds []string
	if o.Kind == KindACL {
		for _, l := range base.Lines {
			if !slices.Contains(o.Lines, l) {
				if seq, _, ok := splitSeq(l); ok {
					cmds = append(cmds, "no "+strconv.Itoa(seq))
				} else {
					cmds = append(cmds, "no "+l)
				}
			}
		}
		for _, l := range o.Lines {
			if !slices.Contains(base.Lines, l) {
				cmds = append(cmds, l)
			}
		}
		return cmds
	}
	cmds = append(cmds, lineCommands(base.Lines, o.Lines)...)
	if o.Kind != KindPolicyMap {
		return cmds
	}
	for _, c := range base.Classes {
		if o.Class(c.Name) == nil {
			cmds = append(cmds, "no "+classHeader(o.Type, c.Name))
		}
	}
	for _, c := range o.Classes {
		bc := base.Class(c.Name)
		if bc == nil {
			cmds = append(cmds, classHeader(o.Type, c.Name))
			cmds = append(cmds, c.Actions...)
			continue
		}
		if slices.Equal(bc.Actions, c.Actions) {
			continue
		}
		cmds = append(cmds, classHeader(o.Type, c.Name))
		cmds = append(cmds, lineCommands(bc.Actions, c.Actions)...)
	}
	return cmds
}

// lineCommands: "no <line>" for keys that went away, then every wanted
// line that is not already there.
func lineCommands(have, want []string) []string {
	var cmds []string
	var buf [8]string
	wantKeys := buf[:0]
	for _, w := range want {
		wantKeys = append(wantKeys, lineKey(w))
	}
	for _, h := range have {
		if !slices.Contains(wantKeys, lineKey(h)) {
			cmds = append(cmds, "no "+h)
		}
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			cmds = append(cmds, w)
		}
	}
	return cmds
}

// describe says in plain words how cur differs from want (first difference).
func describe(cur, want *Object) string {
	if cur.Kind == KindPolicyMap {
		for _, wc := range want.Classes {
			cc := cur.Class(wc.Name)
			if cc == nil {
				return fmt.Sprintf("class %s is missing", wc.Name)
			}
			for _, a := range wc.Actions {
				if slices.Contains(cc.Actions, a) {
					continue
				}
				for _, h := range cc.Actions {
					if lineKey(h) == lineKey(a) {
						return fmt.Sprintf("class %s has '%s' where roce wants '%s'", wc.Name, h, a)
					}
				}
				return fmt.Sprintf("class %s no longer has '%s'", wc.Name, a)
			}
			for _, h := range cc.Actions {
				if !hasKey(wc.Actions, lineKey(h)) {
					return fmt.Sprintf("class %s has '%s', which roce does not render", wc.Name, h)
				}
			}
		}
		for _, cc := range cur.Classes {
			if want.Class(cc.Name) == nil {
				return fmt.Sprintf("class %s is not wanted any more", cc.Name)
			}
		}
	}
	for _, l := range want.Lines {
		if !slices.Contains(cur.Lines, l) {
			return fmt.Sprintf("'%s' is missing", l)
		}
	}
	for _, l := range cur.Lines {
		if !slices.Contains(want.Lines, l) {
			return fmt.Sprintf("'%s' is not wanted", l)
		}
	}
	return "the order of its entries differs"
}

// systemQoS diffs the service-policy attachments.
func (d *differ) systemQoS() error {
	cur, des := d.cur.SystemQoS(), d.des.SystemQoS()
	if cur == nil && des == nil {
		return nil
	}
	if des == nil {
		des = &Object{Kind: KindSystemQoS}
	}
	ch := plan.Change{Address: "system qos", Disrupt: plan.DisruptionBrief, After: des.String(), Action: plan.ActionUpdate}
	have := []string(nil)
	if cur == nil {
		ch.Action = plan.ActionCreate
	} else {
		if sameText(cur, des) {
			return nil
		}
		ch.Before, have = cur.String(), cur.Lines
	}
	body := lineCommands(have, des.Lines)
	if len(body) == 0 {
		return nil
	}
	var notes []string
	if cur != nil {
		for _, sp := range cur.ServicePolicies() {
			for _, w := range des.ServicePolicies() {
				if w.Type == sp.Type && w.Direction == sp.Direction && w.Name != sp.Name {
					notes = append(notes, fmt.Sprintf("%s replaces %s as the %s policy; it carries %s's classes, and %s itself is left in place, detached",
						w.Name, sp.Name, strings.TrimSpace(sp.Type+" "+sp.Direction), sp.Name, sp.Name))
				}
			}
		}
	}
	ch.Note = strings.Join(notes, "; ")
	ch.Commands = append(append(make([]string, 0, 1+len(body)), "system qos"), body...)
	d.add(ch)
	return nil
}

// iface diffs one interface.
func (d *differ) iface(o *Object) {
	cur := d.idx.get(o.id())[0]
	if cur != nil && sameText(cur, o) {
		return
	}
	var have []string
	ch := plan.Change{Address: o.Key(), After: o.String(), Disrupt: plan.DisruptionLink, Action: plan.ActionUpdate}
	if cur != nil {
		have, ch.Before = cur.Lines, cur.String()
	}
	body := lineCommands(have, o.Lines)
	if len(body) == 0 {
		return
	}
	ch.Commands = append(append(make([]string, 0, 1+len(body)), ch.Address), body...) // the Key is the header: "interface NAME"
	d.add(ch)
}

// delete removes one of our objects that is no longer wanted.
func (d *differ) delete(o *Object) {
	d.add(plan.Change{
		Address:  o.Key(),
		Action:   plan.ActionDelete,
		Before:   o.String(),
		Disrupt:  disruptionOf(o.Kind),
		Commands: []string{"no " + o.Key()},
	})
}
