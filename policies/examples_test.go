package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// examplesNotOwnedHere are example directories validated elsewhere: the lab
// policy by the integrator's tests, the fleet-runner files are not policies.
var examplesNotOwnedHere = map[string]bool{"lab": true, "fleet-runners": true}

func TestExamplesLoad(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || examplesNotOwnedHere[filepath.Base(dir)] {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*.hcl")); len(m) == 0 {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, src, diags := Load(dir, LoadOptions{Getenv: noEnv})
			diags = expectWarnings(t, diags, exampleWarnings[filepath.Base(dir)])
			if len(diags) > 0 {
				var buf bytes.Buffer
				_ = src.WriteDiagnostics(&buf, diags, false)
				t.Fatalf("%s: %d diagnostics:\n%s", dir, len(diags), buf.String())
			}
			if f == nil || len(f.Lossless) == 0 || len(f.Switches) == 0 || len(f.Hosts) == 0 {
				t.Fatalf("%s: loaded fabric is missing classes, switches or hosts: %+v", dir, f)
			}
			if want, ok := exampleShapes[filepath.Base(dir)]; ok {
				got := exampleShape{match: f.Lossless[0].Match.Kind, switches: len(f.Switches), hosts: len(f.Hosts), platforms: platformsOf(f)}
				if got != want {
					t.Errorf("%s: got %+v, want %+v", dir, got, want)
				}
			}
		})
	}
	if n < 6 {
		t.Fatalf("found %d example policies, want at least 6 (ethertype, all-traffic, cos, dscp, mixed, fleet)", n)
	}
}

// exampleWarnings are the warnings an example is meant to show: the mixed
// fabric carries bandwidth_percent to a SONiC leaf, where it is not applied
// (platforms.Capabilities.BandwidthNotRendered; the Nexus 7000 applies it).
var exampleWarnings = map[string][]string{
	"mixed": {`bandwidth_percent = 50 will not be applied on switch sonic-leaf (gnmi/sonic)`},
	// The dscp example mixes SONiC and Arista leaves: Arista applies the
	// share, SONiC keeps its default (and validation says so).
	"dscp": {`bandwidth_percent = 50 will not be applied on switch leaf1 (gnmi/sonic)`},
}

// expectWarnings requires each wanted warning (a substring) and returns the
// other diagnostics.
func expectWarnings(t *testing.T, diags hcl.Diagnostics, want []string) hcl.Diagnostics {
	t.Helper()
	var rest hcl.Diagnostics
	found := make([]bool, len(want))
	for _, d := range diags {
		hit := false
		for i, w := range want {
			if d.Severity == hcl.DiagWarning && strings.Contains(d.Detail, w) {
				found[i], hit = true, true
			}
		}
		if !hit {
			rest = append(rest, d)
		}
	}
	for i, w := range want {
		if !found[i] {
			t.Errorf("missing the expected warning %q", w)
		}
	}
	return rest
}

// noEnv is an empty environment: examples must load without any variable
// set (secrets are only read at apply time, by ResolveCredentials).
func noEnv(string) (string, bool) { return "", false }

// TestDocOverviewLoads keeps the first example of docs/policy-language.md
// honest: it must load without any diagnostic.
func TestDocOverviewLoads(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "policy-language.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## Blocks at a glance")
	if !ok {
		t.Fatal("docs/policy-language.md has no \"Blocks at a glance\" section")
	}
	_, rest, ok = strings.Cut(rest, "```hcl\n")
	snippet, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no hcl code block in \"Blocks at a glance\"")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
	if len(diags) > 0 || f == nil {
		t.Fatalf("doc overview example: %s", describeDiags(diags))
	}
}

// exampleShape is what each example is meant to demonstrate.
type exampleShape struct {
	match     MatchKind
	switches  int
	hosts     int
	platforms string // distinct platform[/profile] kinds, sorted
}

var exampleShapes = map[string]exampleShape{
	"ethertype":   {MatchEthertype, 2, 3, "nexus5000"},
	"all-traffic": {MatchAll, 2, 2, "nexus5000,nexus7000"},
	"cos":         {MatchCoS, 2, 4, "nexus5000,nexus7000"},
	"dscp":        {MatchDSCP, 2, 4, "gnmi/arista,gnmi/sonic"},
	"mixed":       {MatchDSCP, 5, 5, "gnmi/arista,gnmi/sonic,gnmi/srlinux,nexus5000,nexus7000"},
	"fleet":       {MatchDSCP, 50, 1000, "gnmi/sonic"},
}

func platformsOf(f *Fabric) string {
	seen := map[string]bool{}
	var out []string
	for _, sw := range f.Switches {
		k := capsKey(sw)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// TestFleetSpread: the fleet example spreads its 1,000 hosts evenly, 20 on
// each of the 50 leaves, with distinct management and link addresses.
func TestFleetSpread(t *testing.T) {
	f, _, diags := Load(filepath.Join("..", "examples", "fleet"), LoadOptions{Getenv: noEnv})
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	perLeaf := map[string]int{}
	addrs := map[string]bool{}
	for _, h := range f.Hosts {
		perLeaf[h.Switch]++
		for _, a := range []string{h.Address, h.NICs[0].Address} {
			if addrs[a] {
				t.Fatalf("address %s is used twice", a)
			}
			addrs[a] = true
		}
	}
	if len(perLeaf) != 50 {
		t.Fatalf("hosts hang off %d leaves, want 50", len(perLeaf))
	}
	for leaf, n := range perLeaf {
		if n != 20 || f.SwitchByName(leaf) == nil {
			t.Errorf("leaf %s has %d hosts, want 20", leaf, n)
		}
	}
}
