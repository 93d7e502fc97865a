package gnmi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// rendered is one desired object with its exact JSON_IETF bytes and the
// leaves those bytes flatten to.
type rendered struct {
	obj   profiles.Object
	value []byte
	want  leafMap
}

// renderObjects marshals each object once; the bytes are what is sent and
// what is compared, so the plan and the wire cannot disagree.
func renderObjects(d *profiles.Desired, keysOf gpath.KeysOf) ([]rendered, error) {
	out := make([]rendered, len(d.Objects))
	for i, o := range d.Objects {
		b, err := json.Marshal(o.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Path, err)
		}
		p, err := gpath.Parse(o.Path)
		if err != nil {
			return nil, err
		}
		v, err := gpath.Decode(b)
		if err != nil {
			return nil, err
		}
		leaves, err := gpath.Flatten(p, v, keysOf)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Path, err)
		}
		out[i] = rendered{obj: o, value: b, want: toMap(leaves)}
	}
	return out, nil
}

// diff compares desired objects with a snapshot and returns the changes
// and the ordered ops of the one SetRequest: deletes, replaces, updates.
func diff(rs []rendered, s *snapshot) ([]plan.Change, []plan.Op) {
	var dels, reps, upds []plan.Change
	for i, r := range rs {
		have := toMap(s.objects[i])
		var lines []string
		switch r.obj.Mode {
		case profiles.Entry:
			lines = leafDiff(have, r.want, true)
		case profiles.Merge:
			lines = leafDiff(have, r.want, false)
		}
		if len(lines) == 0 {
			continue
		}
		ch := plan.Change{
			Address: originPath(r.obj.Origin, r.obj.Path),
			Action:  plan.ActionUpdate,
			Before:  pretty(r.obj.Path, s.objects[i], r.obj.Mode == profiles.Merge, r.want),
			After:   prettyBytes(r.value),
			Disrupt: r.obj.Disrupt,
			Note:    strings.Join(lines, "\n"),
		}
		if len(have) == 0 {
			ch.Action = plan.ActionCreate
		}
		op := plan.Op{Origin: r.obj.Origin, Path: r.obj.Path, Value: r.value}
		if r.obj.Mode == profiles.Entry {
			op.Op = "replace"
			ch.Ops = []plan.Op{op}
			reps = append(reps, ch)
		} else {
			op.Op = "update"
			ch.Ops = []plan.Op{op}
			upds = append(upds, ch)
		}
	}
	for _, it := range s.owned {
		if kept(it.path, rs) {
			continue
		}
		var lines []string
		for _, l := range it.leaves {
			lines = append(lines, "- "+l.Path.Key()+" = "+canon(l.Value))
		}
		sort.Strings(lines)
		dels = append(dels, plan.Change{
			Address: originPath(it.origin, it.path.String()),
			Action:  plan.ActionDelete,
			Before:  pretty(it.path.String(), it.leaves, false, nil),
			Disrupt: plan.DisruptionBrief,
			Note:    strings.Join(lines, "\n"),
			Ops:     []plan.Op{{Op: "delete", Origin: it.origin, Path: it.path.String()}},
		})
	}
	changes := append(append(dels, reps...), upds...)
	var ops []plan.Op
	for _, c := range changes {
		ops = append(ops, c.Ops...)
	}
	return changes, ops
}

// kept reports whether an owned item is still desired: some desired leaf
// is at or under it.
func kept(p gpath.Path, rs []rendered) bool {
	k := p.Key()
	for _, r := range rs {
		for lk := range r.want {
			if lk == k || strings.HasPrefix(lk, k+"/") {
				return true
			}
		}
	}
	return false
}

// leafDiff lists "+ path = v", "- path = v" and "m path: old -> new"
// lines, sorted by path. full also reports leaves only the device has.
func leafDiff(have, want leafMap, full bool) []string {
	var lines []string
	for k, w := range want {
		h, ok := have[k]
		switch {
		case !ok:
			lines = append(lines, "+ "+k+" = "+canon(w.Value))
		case canon(h.Value) != canon(w.Value):
			lines = append(lines, "m "+k+": "+canon(h.Value)+" -> "+canon(w.Value))
		}
	}
	if full {
		for k, h := range have {
			if _, ok := want[k]; !ok {
				lines = append(lines, "- "+k+" = "+canon(h.Value))
			}
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][2:] < lines[j][2:] })
	return lines
}

// originPath names a change: the path, with the origin in front unless it
// is openconfig (gnmic's "origin:/path").
func originPath(origin, path string) string {
	if origin == "" || origin == "openconfig" {
		return path
	}
	return origin + ":" + path
}

// pretty renders current leaves at path as indented JSON; onlyWant keeps
// the leaves we set (merged objects).
func pretty(path string, leaves []gpath.Leaf, onlyWant bool, want leafMap) string {
	if len(leaves) == 0 {
		return ""
	}
	p, err := gpath.Parse(path)
	if err != nil {
		return ""
	}
	var keep []gpath.Leaf
	for _, l := range leaves {
		if onlyWant {
			if _, ok := want[l.Path.Key()]; !ok {
				continue
			}
		}
		keep = append(keep, l)
	}
	if len(keep) == 0 {
		return ""
	}
	v, err := gpath.Build(p, keep)
	if err != nil {
		return ""
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func prettyBytes(b []byte) string {
	v, err := gpath.Decode(b)
	if err != nil {
		return string(b)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}
