package gnmi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// snapshot is what was read from the device for one plan: the current
// leaves at every desired object's path, and every piece of config the tool
// owns (found through the profile's collections).
type snapshot struct {
	objects [][]gpath.Leaf // parallel to Desired.Objects
	owned   []ownedItem
}

// ownedItem is one owned entry or leaf found on the device.
type ownedItem struct {
	origin string
	path   gpath.Path
	leaves []gpath.Leaf
}

// getLeaves reads one path; a NotFound answer means nothing is there.
func (t *target) getLeaves(ctx context.Context, origin, path string) ([]gpath.Leaf, error) {
	p, err := gpath.Parse(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := t.opCtx(ctx)
	defer cancel()
	resp, err := t.client.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto(origin)}, Encoding: t.encoding, Type: gpb.GetRequest_CONFIG})
	if status.Code(err) == codes.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: Get %s: %w", t.Address(), path, err)
	}
	leaves, err := decodeGetResponse(resp, p, t.prof.KeysOf)
	if err != nil {
		return nil, fmt.Errorf("%s: Get %s: bad response: %w", t.Address(), path, err)
	}
	return leaves, nil
}

// read takes a snapshot for the desired objects and the owned collections.
// It reads whole containers (the parent of each object, e.g. /qos/queues
// for one queue) once each, so a 32-port switch costs a handful of Gets
// rather than one per object, then hands each object and collection the
// leaves under its path.
func (t *target) read(ctx context.Context, d *profiles.Desired) (*snapshot, error) {
	c := &readCache{t: t}
	s := &snapshot{objects: make([][]gpath.Leaf, len(d.Objects))}
	for i, o := range d.Objects {
		p, err := gpath.Parse(o.Path)
		if err != nil {
			return nil, err
		}
		l, err := c.under(ctx, o.Origin, p, containerOf(p))
		if err != nil {
			return nil, err
		}
		s.objects[i] = l
	}
	seen := map[string]bool{}
	for _, col := range t.prof.Collections(t.sw.Interfaces) {
		base, err := gpath.Parse(col.Container)
		if err != nil {
			return nil, err
		}
		leaves, err := c.under(ctx, col.Origin, base, base)
		if err != nil {
			return nil, err
		}
		for _, it := range ownedIn(col, base, leaves) {
			k := it.origin + " " + it.path.Key()
			if !seen[k] {
				seen[k] = true
				s.owned = append(s.owned, it)
			}
		}
	}
	sort.Slice(s.owned, func(i, j int) bool { return s.owned[i].path.Key() < s.owned[j].path.Key() })
	return s, nil
}

// containerOf is the path read to find p: its parent, or for a top-level
// list entry the whole list (never the root).
func containerOf(p gpath.Path) gpath.Path {
	if len(p) <= 1 {
		if len(p) == 1 {
			return gpath.Path{{Name: p[0].Name}}
		}
		return p
	}
	return p[:len(p)-1]
}

// readCache remembers what one read fetched, per origin and path.
type readCache struct {
	t       *target
	fetched []fetched
}

type fetched struct {
	origin string
	path   gpath.Path
	leaves []gpath.Leaf
}

// under returns the leaves at or under p, fetching fetch (an ancestor of p
// or p itself) unless an earlier Get already covered p.
func (c *readCache) under(ctx context.Context, origin string, p, fetch gpath.Path) ([]gpath.Leaf, error) {
	var src *fetched
	for i := range c.fetched {
		f := &c.fetched[i]
		if f.origin == origin && p.HasPrefix(f.path) {
			src = f
			break
		}
	}
	if src == nil {
		leaves, err := c.t.getLeaves(ctx, origin, fetch.String())
		if err != nil {
			return nil, err
		}
		c.fetched = append(c.fetched, fetched{origin: origin, path: fetch, leaves: leaves})
		src = &c.fetched[len(c.fetched)-1]
	}
	var out []gpath.Leaf
	for _, l := range src.leaves {
		if l.Path.HasPrefix(p) {
			out = append(out, l)
		}
	}
	return out, nil
}

// ownedIn finds the owned entries and leaves in one collection's leaves.
func ownedIn(c profiles.Collection, base gpath.Path, leaves []gpath.Leaf) []ownedItem {
	var out []ownedItem
	ours := func(v any) bool {
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, profiles.Prefix)
	}
	// groups by the element right under the container.
	groups := map[string][]gpath.Leaf{}
	var order []string
	for _, l := range leaves {
		if len(l.Path) <= len(base) {
			continue
		}
		e := l.Path[:len(base)+1]
		k := e.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], l)
	}
	sort.Strings(order)
	relEq := func(l gpath.Leaf, entry gpath.Path, rel string) bool {
		return strings.TrimPrefix(l.Path.Key(), entry.Key()+"/") == rel
	}
	if c.List == "" && !c.Rows {
		for _, l := range leaves {
			for _, rel := range c.OwnLeaves {
				if relEq(l, base, rel) && ours(l.Value) {
					out = append(out, ownedItem{origin: c.Origin, path: l.Path, leaves: []gpath.Leaf{l}})
				}
			}
		}
		return out
	}
	for _, k := range order {
		g := groups[k]
		entry := g[0].Path[:len(base)+1]
		last := entry[len(entry)-1]
		if c.List != "" && (last.Name != c.List || len(last.Keys) == 0) {
			continue
		}
		switch {
		case len(c.OwnLeaves) == 0:
			name := last.Name
			if c.List != "" {
				name = last.Keys[c.Key]
			}
			if strings.HasPrefix(name, profiles.Prefix) {
				out = append(out, ownedItem{origin: c.Origin, path: entry, leaves: g})
			}
		case c.List != "":
			for _, l := range g {
				for _, rel := range c.OwnLeaves {
					if relEq(l, entry, rel) && ours(l.Value) {
						out = append(out, ownedItem{origin: c.Origin, path: entry, leaves: g})
					}
				}
			}
		default: // rows with owned leaves
			for _, l := range g {
				for _, rel := range c.OwnLeaves {
					if relEq(l, entry, rel) && ours(l.Value) {
						out = append(out, ownedItem{origin: c.Origin, path: l.Path, leaves: []gpath.Leaf{l}})
					}
				}
			}
		}
	}
	return out
}

// fingerprint digests what a plan depends on: for entries every leaf, for
// merged objects only the leaves we set, and every owned item.
func (s *snapshot) fingerprint(want []leafMap, d *profiles.Desired) string {
	var lines []string
	for i, o := range d.Objects {
		for _, l := range s.objects[i] {
			if o.Mode == profiles.Merge {
				if _, ok := want[i][l.Path.Key()]; !ok {
					continue
				}
			}
			lines = append(lines, o.Origin+" "+l.Path.Key()+"="+canon(l.Value))
		}
	}
	for _, it := range s.owned {
		for _, l := range it.leaves {
			lines = append(lines, it.origin+" "+l.Path.Key()+"="+canon(l.Value))
		}
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// canon is the JSON text of a leaf value (json.Number keeps its digits).
func canon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// leafMap is leaves by canonical path.
type leafMap map[string]gpath.Leaf

func toMap(ls []gpath.Leaf) leafMap {
	m := make(leafMap, len(ls))
	for _, l := range ls {
		m[l.Path.Key()] = l
	}
	return m
}
