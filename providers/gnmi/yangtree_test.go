package gnmi_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// schemaTree is a profile's compiled schema as yanglint prints it (-f tree,
// with the image's features and deviations): data node paths (element
// names without module prefixes, choices and cases left out) -> "rw" or
// "ro". A node a deviation removes, or an if-feature leaves out, is absent.
// The second map holds the paths that are leaves or leaf-lists (a type
// follows the name).
func schemaTree(t *testing.T, profile string) (map[string]string, map[string]bool) {
	t.Helper()
	bin, args := yanglintCmd(t, profile, "-f", "tree", "-L", "100000")
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("yanglint -f tree: %v", err)
	}
	return parseTree(string(out))
}

var treeLine = regexp.MustCompile(`^([ |]*)[+xo]--(rw|ro|-w)? ?(\S+)(\s+\S+)?`)

func parseTree(s string) (map[string]string, map[string]bool) {
	out := map[string]string{}
	leaves := map[string]bool{}
	var stack []string // element name per depth ("" for a choice or case)
	inModule := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "module: ") {
			inModule, stack = true, nil
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "augment ") || strings.HasPrefix(strings.TrimSpace(line), "rpcs:") || strings.HasPrefix(strings.TrimSpace(line), "notifications:") {
			inModule = false
			continue
		}
		m := treeLine.FindStringSubmatch(line)
		if !inModule || m == nil {
			continue
		}
		depth := (len(m[1]) - 2) / 3
		if depth < 0 || depth > len(stack) {
			continue
		}
		stack = stack[:depth]
		name := strings.TrimRight(m[3], "*?!")
		if strings.HasPrefix(name, "(") || strings.HasPrefix(name, ":(") {
			stack = append(stack, "") // a choice or a case: no data node
			continue
		}
		name = gpath.StripModule(name)
		stack = append(stack, name)
		var path []string
		for _, e := range stack {
			if e != "" {
				path = append(path, e)
			}
		}
		out[strings.Join(path, "/")] = m[2]
		if rest := strings.TrimSpace(m[4]); rest != "" && !strings.HasPrefix(rest, "[") && !strings.HasPrefix(rest, "{") {
			leaves[strings.Join(path, "/")] = true
		}
	}
	return out, leaves
}

// yangPath maps a gNMI path's element names to the schema tree's: for
// SONiC, /CONFIG_DB/<ns>/TABLE/<key>/<field> becomes
// sonic-x/TABLE/TABLE_LIST/<field> (or TABLE/TABLE_LIST/TABLE/<value leaf>
// for the map tables).
func yangPath(t *testing.T, profile string, names []string) string {
	t.Helper()
	if profile != "sonic" {
		return strings.Join(names, "/")
	}
	if len(names) != 5 || names[0] != "CONFIG_DB" {
		t.Fatalf("SONiC path %v is not /CONFIG_DB/<ns>/<table>/<key>/<field>", names)
	}
	tb, ok := sonicTables[names[2]]
	if !ok {
		t.Fatalf("CONFIG_DB table %s has no sonic-yang mapping", names[2])
	}
	if tb.inner != "" {
		return strings.Join([]string{tb.module, names[2], tb.list, tb.inner, tb.innerVal}, "/")
	}
	return strings.Join([]string{tb.module, names[2], tb.list, names[4]}, "/")
}

// patternNames turns a gnmisim schema pattern into element names.
func patternNames(pattern string) []string {
	var out []string
	depth, start := 0, 1
	for i := 1; i <= len(pattern); i++ {
		if i < len(pattern) {
			switch pattern[i] {
			case '{':
				depth++
				continue
			case '}':
				depth--
				continue
			}
			if pattern[i] != '/' || depth > 0 {
				continue
			}
		}
		e := pattern[start:i]
		if j := strings.IndexAny(e, "[{"); j >= 0 {
			e = e[:j]
		}
		out = append(out, e)
		start = i + 1
	}
	return out
}

var treeAnchors = map[string]map[string]string{
	"openconfig": {"qos/queues/queue/config/queue-id": "rw", "qos/queues/queue/state/queue-id": "ro"},
	"arista": {
		"qos/queues/queue/config/queue-id":                              "", // not-supported deviation
		"qos/interfaces/interface/output/pfc/config/priorities-no-drop": "rw",
	},
	"srlinux": {
		"qos/pfc-mapping-profile/received-traffic/unicast-mapping/pfc-queue/enable-pfc": "", // if-feature future-0-0
		"qos/pfc-mapping-profile/received-pfc-pause-frames/queue/enable-pfc":            "rw",
	},
	"sonic": {"sonic-pfcwd/PFC_WD/PFC_WD_LIST/detection_time": "rw"},
}

// Every leaf roce writes, and every leaf the simulator accepts, exists in
// the pinned vendor model and is writable there: not config false, not
// removed by a not-supported deviation, not behind a feature the image
// lacks.
func TestWrittenLeavesAreWritableInTheModel(t *testing.T) {
	for _, profile := range []string{"arista", "sonic", "srlinux", "openconfig"} {
		t.Run(profile, func(t *testing.T) {
			tree, treeLeaves := schemaTree(t, profile)
			if len(tree) < 50 {
				t.Fatalf("only %d schema nodes parsed from yanglint's tree", len(tree))
			}
			// Anchors: the tree holds what the features and deviations
			// leave, so the check below can fail.
			for p, want := range treeAnchors[profile] {
				if tree[p] != want {
					t.Errorf("schema tree: %s is %q, want %q", p, tree[p], want)
				}
			}
			check := func(what string, names []string) {
				p := yangPath(t, profile, names)
				switch tree[p] {
				case "rw":
				case "":
					t.Errorf("%s: %s is not in the pinned %s model (absent, deviated not-supported, or behind a feature the image lacks)", what, p, profile)
				default:
					t.Errorf("%s: %s is %s (config false) in the pinned %s model", what, p, tree[p], profile)
				}
			}
			pats, err := gnmisim.ModelledLeaves(profile)
			if err != nil {
				t.Fatal(err)
			}
			if len(pats) < 20 {
				t.Fatalf("gnmisim accepts only %d leaves", len(pats))
			}
			for _, pat := range pats {
				// Schema paths for every profile (sonic: sonic-yang's, which
				// CONFIG_DB paths map onto).
				p := strings.Join(patternNames(pat), "/")
				switch tree[p] {
				case "rw":
				case "":
					t.Errorf("gnmisim accepts %s, which is not in the pinned %s model (absent, deviated not-supported, or behind a feature the image lacks)", p, profile)
				default:
					t.Errorf("gnmisim accepts %s, which is %s (config false) in the pinned %s model", p, tree[p], profile)
				}
			}
			// And the other way: every writable leaf of yanglint's tree
			// is one gnmisim accepts (its compiled schema has the same
			// features and deviations).
			accepts := map[string]bool{}
			for _, pat := range pats {
				accepts[strings.Join(patternNames(pat), "/")] = true
			}
			missing := 0
			for p, rw := range tree {
				if rw == "rw" && treeLeaves[p] && !accepts[p] {
					missing++
					if missing <= 10 {
						t.Errorf("yanglint's %s model has writable leaf %s, which gnmisim refuses", profile, p)
					}
				}
			}
			if profile == "openconfig" {
				return // refuses every lossless class: writes nothing
			}
			prof, err := profiles.New(profile, profiles.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			files, golden := goldenOps(t, profile)
			if len(files) == 0 {
				t.Fatal("no golden ops")
			}
			for i, f := range files {
				for _, op := range golden[i] {
					if op.Op == "delete" {
						continue
					}
					p, v := opPathValue(t, op)
					leaves, err := gpath.Flatten(p, v, prof.KeysOf)
					if err != nil {
						t.Fatalf("%s %s: %v", f, op.Path, err)
					}
					for _, l := range leaves {
						check(filepath.Base(f)+" writes", l.Path.Names())
					}
				}
			}
		})
	}
}
