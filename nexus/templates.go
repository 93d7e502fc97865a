package nexus

import (
	"fmt"
	"slices"
	"strings"
)

// Nexus 7000 network-qos templates. On the 7000 network-qos is never built
// from scratch: a default-nq-* template is copied with
// `qos copy policy-map type network-qos <template> prefix <p>` and the copy
// is edited (docs/nxos.md#qos).
//
// UNCONFIRMED (docs/nxos.md#qos): the class names, CoS sets and actions
// below come from memory, not from a reachable Cisco page. Only the 7e
// template's FCoE no-drop class on CoS 3 is confirmed as a use (fixture F6).
// This table is the single place to correct them.

// NQTemplate is one default-nq-* template.
type NQTemplate struct {
	Name    string // e.g. "default-nq-7e-policy"
	Classes []NQTemplateClass
}

// NQTemplateClass is one class of a template.
type NQTemplateClass struct {
	Name    string
	CoS     []int
	NoDrop  bool
	Actions []string
}

// NQTemplates returns the 7000 templates, fewest no-drop CoS first (the
// order Render picks in).
func NQTemplates() []NQTemplate {
	return []NQTemplate{
		{Name: "default-nq-8e-policy", Classes: []NQTemplateClass{
			{Name: "c-nq-8e", CoS: []int{0, 1, 2, 3, 4, 5, 6, 7}, Actions: []string{"congestion-control tail-drop", "mtu 1500"}},
		}},
		{Name: "default-nq-7e-policy", Classes: []NQTemplateClass{
			{Name: "c-nq-7e-drop", CoS: []int{0, 1, 2, 4, 5, 6, 7}, Actions: []string{"congestion-control tail-drop", "mtu 1500"}},
			{Name: "c-nq-7e-ndrop-fcoe", CoS: []int{3}, NoDrop: true, Actions: []string{"pause no-drop", "mtu 2112"}},
		}},
		{Name: "default-nq-6e-policy", Classes: []NQTemplateClass{
			{Name: "c-nq-6e-drop", CoS: []int{0, 1, 2, 5, 6, 7}, Actions: []string{"congestion-control tail-drop", "mtu 1500"}},
			{Name: "c-nq-6e-ndrop-fcoe", CoS: []int{3}, NoDrop: true, Actions: []string{"pause no-drop", "mtu 2112"}},
			{Name: "c-nq-6e-ndrop", CoS: []int{4}, NoDrop: true, Actions: []string{"pause no-drop", "mtu 1500"}},
		}},
		{Name: "default-nq-4e-policy", Classes: []NQTemplateClass{
			{Name: "c-nq-4e-drop", CoS: []int{0, 5, 6, 7}, Actions: []string{"congestion-control tail-drop", "mtu 1500"}},
			{Name: "c-nq-4e-ndrop-fcoe", CoS: []int{3}, NoDrop: true, Actions: []string{"pause no-drop", "mtu 2112"}},
			{Name: "c-nq-4e-ndrop", CoS: []int{1, 2, 4}, NoDrop: true, Actions: []string{"pause no-drop", "mtu 1500"}},
		}},
	}
}

// nqTemplateTable is NQTemplates built once, for the lookups Render and
// Diff make per switch. Read-only: nothing may change it; NQTemplates and
// ChooseNQTemplate hand out fresh copies, and policy copies the actions.
var nqTemplateTable = NQTemplates()

// nqTemplateNames lists the templates' names, for messages.
func nqTemplateNames() string {
	names := make([]string, 0, len(nqTemplateTable))
	for _, t := range nqTemplateTable {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

func nqTemplateByName(name string) (NQTemplate, bool) {
	return nqTemplateFrom(nqTemplateTable, name)
}

func nqTemplateFrom(ts []NQTemplate, name string) (NQTemplate, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return NQTemplate{}, false
}

// NoDropCoS is the set of CoS values the template makes no-drop.
func (t NQTemplate) NoDropCoS() []int {
	var out []int
	for _, c := range t.Classes {
		if c.NoDrop {
			out = append(out, c.CoS...)
		}
	}
	slices.Sort(out)
	return out
}

// Short is the template name without "default-" and "-policy"
// ("default-nq-7e-policy" → "nq-7e").
func (t NQTemplate) Short() string {
	return strings.TrimSuffix(strings.TrimPrefix(t.Name, "default-"), "-policy")
}

// CopyName is the name `qos copy ... prefix p` gives the copy. The rule is
// seen on the Nexus 9000 (docs/nxos.md#qos) and UNCONFIRMED on the 7000.
func (t NQTemplate) CopyName(prefix string) string { return prefix + t.Short() }

// policy builds the template (or a copy of it) as a policy-map object.
func (t NQTemplate) policy(name string) *Object {
	o := &Object{Kind: KindPolicyMap, Type: TypeNetworkQoS, Name: name}
	for _, c := range t.Classes {
		o.Classes = append(o.Classes, &PolicyClass{Name: c.Name, Actions: append([]string(nil), c.Actions...)})
	}
	return o
}

// ChooseNQTemplate picks the template with the fewest no-drop CoS that makes
// every CoS in need no-drop.
func ChooseNQTemplate(need []int) (NQTemplate, error) {
	t, err := chooseNQTemplate(need)
	if err != nil {
		return NQTemplate{}, err
	}
	t, _ = nqTemplateFrom(NQTemplates(), t.Name) // a copy the caller may edit
	return t, nil
}

// chooseNQTemplate is ChooseNQTemplate on the read-only table: Render
// calls it per switch and only reads the template.
func chooseNQTemplate(need []int) (NQTemplate, error) {
	for _, t := range nqTemplateTable {
		if covers(t, need) {
			return t, nil
		}
	}
	return NQTemplate{}, fmt.Errorf("no Nexus 7000 network-qos template makes CoS %v no-drop (templates: 7e = CoS 3; 6e = 3,4; 4e = 1-4; UNCONFIRMED, see nexus/templates.go)", need)
}

// templateOfCopy returns the template a copied policy was made from, by its
// name (prefix + short name).
func templateOfCopy(name string) (NQTemplate, bool) {
	for _, t := range nqTemplateTable {
		if strings.HasSuffix(name, t.Short()) && len(name) > len(t.Short()) {
			return t, true
		}
	}
	return NQTemplate{}, false
}
