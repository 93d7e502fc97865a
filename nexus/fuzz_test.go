package nexus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addSeeds(f *testing.F, dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			addSeeds(f, filepath.Join(dir, e.Name()))
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil {
			f.Add(string(b))
		}
	}
}

// FuzzParse: never panics; what parses prints back to text that parses to
// the same text.
func FuzzParse(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "start"))
	f.Add(readShow(f, "ipqos-ucs.txt"))
	f.Add("policy-map type qos P\r  class C\r    set qos-group 2\r\tx\n")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := Parse(text)
		if err != nil {
			return
		}
		again, err := Parse(c.String())
		if err != nil {
			t.Fatalf("String() output does not parse: %v\n%q", err, c.String())
		}
		if again.String() != c.String() {
			t.Fatalf("not stable:\n%q\n%q", c.String(), again.String())
		}
	})
}

func FuzzParseShowVersion(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "show"))
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseShowVersion(text)
		if err != nil {
			return
		}
		if v.OS == "" || v.Platform == "" {
			t.Fatalf("accepted without OS or platform: %+v", v)
		}
	})
}

func FuzzParseShowModule(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "show"))
	f.Fuzz(func(t *testing.T, text string) {
		mods, err := ParseShowModule(text)
		if err != nil {
			return
		}
		for _, m := range mods {
			if m.Slot < 0 || m.Ports < 0 {
				t.Fatalf("negative numbers accepted: %+v", m)
			}
		}
	})
}

func FuzzParseShowPFC(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "show"))
	f.Fuzz(func(t *testing.T, text string) {
		rows, err := ParseShowPFC(text)
		if err != nil {
			return
		}
		for _, r := range rows {
			if _, ok := CanonicalInterface(r.Interface); !ok {
				t.Fatalf("row with a non-interface accepted: %+v", r)
			}
		}
	})
}

func FuzzParseShowQueuing(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "show"))
	f.Fuzz(func(t *testing.T, text string) {
		ifs, err := ParseShowQueuing(text)
		if err != nil {
			return
		}
		for _, qi := range ifs {
			for _, g := range qi.Groups {
				if g.QoSGroup < 0 || g.QoSGroup > 7 || (g.Direction != "RX" && g.Direction != "TX") {
					t.Fatalf("bad group accepted: %+v", g)
				}
			}
		}
	})
}

// FuzzEditor: random lines never panic, a refused line is a *CLIError that
// changes neither the config nor the mode, and the config stays printable
// and parseable.
func FuzzEditor(f *testing.F) {
	for _, s := range []string{
		"class-map type qos match-any X\nmatch cos 3\npolicy-map type qos P\nclass X\nset qos-group 2",
		"qos copy policy-map type network-qos default-nq-7e-policy prefix R-\npolicy-map type network-qos R-nq-7e\nclass type network-qos c-nq-7e-ndrop-fcoe\nmtu 9216",
		"interface e1/1\npriority-flow-control mode on\nflowcontrol send on\nexit\nexit",
		"ip access-list A\n10 permit udp any any eq 4791\nno 10\nmac access-list M\npermit any any 0x8915",
		"system qos\nservice-policy type network-qos fcoe-default-nq-policy\nno service-policy type network-qos fcoe-default-nq-policy",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, script string, n7k bool) {
		kind := "nexus5000"
		if n7k {
			kind = "nexus7000"
		}
		p := testPlatform(t, kind)
		cfg, err := Parse(readStartForFuzz(kind))
		if err != nil {
			t.Fatal(err)
		}
		e := NewEditor(cfg, p, testModules7000)
		for _, l := range strings.Split(script, "\n") {
			before, mode := cfg.String(), e.Mode()
			if err := e.Line(l); err != nil {
				if _, ok := err.(*CLIError); !ok {
					t.Fatalf("%q: error %T is not a *CLIError", l, err)
				}
				if cfg.String() != before || e.Mode() != mode {
					t.Fatalf("refused line %q changed the config or the mode", l)
				}
			}
			if !e.InConfig() {
				return
			}
		}
		if _, err := Parse(cfg.String()); err != nil {
			t.Fatalf("edited config does not parse: %v\n%s", err, cfg)
		}
	})
}

func readStartForFuzz(kind string) string {
	b, _ := os.ReadFile(filepath.Join("testdata", "start", kind, "foreign.txt"))
	return string(b)
}

// FuzzParseShowClients: the parsers of the outputs other clients read
// (show interface, inventory, vdc, version report) never panic, and what
// they accept has the fields they promise.
func FuzzParseShowClients(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "corpus", "show"))
	f.Fuzz(func(t *testing.T, text string) {
		if ports, err := ParseShowInterface(text); err == nil {
			for _, p := range ports {
				if p.Name == "" || (p.State != "up" && p.State != "down" && p.State != "administratively down") {
					t.Fatalf("interface without name or state: %+v", p)
				}
			}
		}
		if items, err := ParseShowInventory(text); err == nil && len(items) == 0 {
			t.Fatal("inventory accepted with no item")
		}
		if vdcs, err := ParseShowVDC(text); err == nil && len(vdcs) == 0 {
			t.Fatal("vdc table accepted with no row")
		}
		if r, err := ParseShowVersionReport(text); err == nil && (r.OS == "" || r.Platform == "" || r.Uptime < 0) {
			t.Fatalf("version report accepted without OS/platform: %+v", r)
		}
	})
}

// FuzzCheck: loading any text as a 5000 or 7000 never panics; every error
// it reports names a line of the text.
func FuzzCheck(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "corpus", "config"))
	f.Add("class-map type qos match-all c\nmatch cos {{ x }}\n")
	p5, p7 := testPlatform(f, "nexus5000"), testPlatform(f, "nexus7000")
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range []Platform{p5, p7} {
			c, err := Check(text, p, testModules7000)
			if c == nil {
				continue // Parse refused it
			}
			n := strings.Count(text, "\n") + strings.Count(text, "\r") + 1
			for _, e := range unjoin(err) {
				le, ok := e.(*LineError)
				if !ok || le.Line < 1 || le.Line > n {
					t.Fatalf("error not tied to a line of the text: %v", e)
				}
			}
		}
	})
}
