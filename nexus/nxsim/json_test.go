package nxsim

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// objectShape lists an object's keys in order, each with the JSON type of
// its value ("host_name string", "memory number").
func objectShape(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v %v\n%s", tok, err, raw)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		typ := "string"
		switch c := bytes.TrimSpace(v)[0]; {
		case c == '{':
			typ = "object"
		case c == '[':
			typ = "array"
		case c == 't' || c == 'f':
			typ = "bool"
		case c == 'n':
			typ = "null"
		case c != '"':
			typ = "number"
		}
		out = append(out, k.(string)+" "+typ)
	}
	return out
}

// rows returns the ROW_name entries of TABLE_name, an object for one row
// and an array for several.
func rows(t *testing.T, raw []byte, name string) []json.RawMessage {
	t.Helper()
	var top map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	row, ok := top["TABLE_"+name]["ROW_"+name]
	if !ok {
		t.Fatalf("no TABLE_%s.ROW_%s in %s", name, name, raw)
	}
	if bytes.TrimSpace(row)[0] == '{' {
		return []json.RawMessage{row}
	}
	var list []json.RawMessage
	if err := json.Unmarshal(row, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "json", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// On a release with `| json`, the simulator's JSON has the keys, key order
// and value types of the real captures, key by key, for every command it
// gives a JSON form; the values are its own state.
func TestJSONMatchesCaptures(t *testing.T) {
	for _, opts := range []Options{
		{Platform: "nexus7000", Hostname: "agg7", Version: "7.3(1)D1(1)"},
		{Platform: "nexus5000", Hostname: "leaf5", Version: "7.3(0)N1(1)",
			StartupConfig: "interface Ethernet1/2\n  description rdma-host-2\n  mtu 9216\n  switchport mode trunk\n"},
	} {
		t.Run(opts.Platform, func(t *testing.T) {
			sw, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			s := &session{sw: sw}
			run := func(line string) []byte {
				t.Helper()
				out, err := s.execFiltered(line, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid([]byte(out)) {
					t.Fatalf("%s: not JSON:\n%s", line, out)
				}
				return []byte(out)
			}

			ver := run("show version | json")
			if got, want := objectShape(t, ver), objectShape(t, readCapture(t, "nxosv-7.3.1.D1.1-show-version.json")); !reflect.DeepEqual(got, want) {
				t.Errorf("show version | json keys\n got %q\nwant %q", got, want)
			}
			var v map[string]any
			_ = json.Unmarshal(ver, &v)
			f := factsFor(opts.Platform)
			if v["host_name"] != opts.Hostname || v["sys_ver_str"] != opts.Version || v["proc_board_id"] != f.serial ||
				v["memory"].(float64) <= 0 || v["bootflash_size"].(float64) <= 0 || !strings.HasPrefix(v["header_str"].(string), "Cisco Nexus Operating System") {
				t.Errorf("show version | json values: %v", v)
			}

			// chassis_id is the hardware line without its last
			// parenthesis, module_id what is inside it (the capture:
			// "NX-OSv Chassis", "NX-OSv Supervisor Module").
			want := map[string][2]string{
				"nexus7000": {"Nexus7000 C7010 (10 Slot) Chassis", "Supervisor Module-2"},
				"nexus5000": {"Nexus 5596 Chassis", "O2 48X10GE/Modular Supervisor"},
			}[opts.Platform]
			wantChassis, wantModule := want[0], want[1]
			if v["chassis_id"] != wantChassis || v["module_id"] != wantModule {
				t.Errorf("show version | json: chassis_id %q module_id %q, want %q %q", v["chassis_id"], v["module_id"], wantChassis, wantModule)
			}

			capIf := rows(t, readCapture(t, "nxosv-7.3.1.D1.1-show-interface.json"), "interface")[1] // Ethernet2/1
			all := rows(t, run("sh int | json"), "interface")
			if len(all) != len(sw.interfaces) {
				t.Fatalf("show interface | json: %d rows, want %d", len(all), len(sw.interfaces))
			}
			if got, want := objectShape(t, all[0]), objectShape(t, capIf); !reflect.DeepEqual(got, want) {
				t.Errorf("show interface | json row keys\n got %q\nwant %q", got, want)
			}
			one := rows(t, run("show interface Ethernet1/2 | json"), "interface")
			var e2 map[string]any
			_ = json.Unmarshal(one[0], &e2)
			if len(one) != 1 || e2["interface"] != "Ethernet1/2" || e2["state"] != "up" {
				t.Errorf("one port: %s", one)
			}
			if opts.Platform == "nexus5000" && (e2["eth_mtu"] != "9216" || e2["eth_mode"] != "trunk" || e2["desc"] != "rdma-host-2") {
				t.Errorf("Ethernet1/2 | json: %v", e2)
			}

			capInv := rows(t, readCapture(t, "n6001-show-inventory.json"), "inv")
			inv := rows(t, run("show inventory | json"), "inv")
			if len(inv) != len(sw.inventory()) {
				t.Fatalf("show inventory | json: %d rows", len(inv))
			}
			for _, r := range inv {
				if got, want := objectShape(t, r), objectShape(t, capInv[0]); !reflect.DeepEqual(got, want) {
					t.Errorf("show inventory | json row keys\n got %q\nwant %q", got, want)
				}
			}
			var chassis map[string]string
			_ = json.Unmarshal(inv[0], &chassis)
			if want := sw.inventory()[0]; chassis["name"] != "Chassis" || chassis["serialnum"] != want.SN || chassis["productid"] != want.PID {
				t.Errorf("chassis row: %v", chassis)
			}

			if got, want := objectShape(t, run("show hostname | json")), objectShape(t, readCapture(t, "nxosv-show-hostname.json")); !reflect.DeepEqual(got, want) {
				t.Errorf("show hostname | json keys %q, want %q", got, want)
			}
		})
	}
}

// Releases before 7.2 have no `| json`: the word is refused with the caret
// under it. A command without a captured JSON form says so; filters after
// json apply to the JSON text.
func TestJSONPipeByRelease(t *testing.T) {
	old, err := New(Options{Platform: "nexus5000", Hostname: "leaf1"}) // 7.1(4)N1(1)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := (&session{sw: old}).execFiltered("show version | json", 0)
	if want := strings.Repeat(" ", 15) + "^\n% Invalid command at '^' marker."; out != want {
		t.Errorf("7.1(4)N1(1) show version | json:\n%q\nwant\n%q", out, want)
	}
	n7k, err := New(Options{Platform: "nexus7000", Hostname: "agg1"}) // 6.2(14)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := (&session{sw: n7k}).execFiltered("show inventory | json", 0); !strings.Contains(out, "% Invalid command at '^' marker.") {
		t.Errorf("6.2(14) show inventory | json: %q", out)
	}

	sw, err := New(Options{Platform: "nexus7000", Hostname: "agg2", Version: "8.2(2)"})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{sw: sw}
	for line, want := range map[string]string{
		"show module | json":             "ERROR: nxsim has no JSON form of `show module`",
		"show vdc current-vdc | json":    "ERROR: nxsim has no JSON form of `show vdc current-vdc`",
		"show hostname | json | count":   "1",
		"show hostname | json | no-more": `{"hostname":"agg2"}`,
		"show bogus | json":              "% Invalid command at '^' marker.",
		"show hostname | json | frob":    "^\n% Invalid command",
	} {
		out, err := s.execFiltered(line, 0)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: %q, %v; want %q", line, out, err, want)
		}
	}
}

// `| json-pretty` is accepted wherever `| json` is: the same JSON,
// indented by four spaces a level with ", " ending a line, as a public
// capture prints it (docs/nxos.md, "| json"); later filters work on its
// lines; a release without `| json` refuses it at the word.
func TestJSONPretty(t *testing.T) {
	sw := newTestSwitch(t, Options{Platform: "nexus5000", Hostname: "leaf5", Version: "7.3(0)N1(1)",
		StartupConfig: "interface Ethernet1/2\n  description two\n  mtu 9216\n"})
	s := &session{sw: sw}
	for _, cmd := range []string{"show version", "show hostname", "show inventory", "show interface", "show interface Ethernet1/1-2"} {
		t.Run(cmd, func(t *testing.T) {
			flat, err := s.execFiltered(cmd+" | json", 0)
			if err != nil {
				t.Fatal(err)
			}
			pretty, err := s.execFiltered(cmd+" | json-pretty", 0)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if err := json.Unmarshal([]byte(flat), &a); err != nil {
				t.Fatalf("| json: %v", err)
			}
			if err := json.Unmarshal([]byte(pretty), &b); err != nil {
				t.Fatalf("| json-pretty: %v\n%s", err, pretty)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("| json-pretty holds other data than | json:\n%s\n%s", pretty, flat)
			}
			lines := strings.Split(pretty, "\n")
			if len(lines) < 3 || lines[0] != "{" || !strings.HasPrefix(lines[1], `    "`) || lines[len(lines)-1] != "}" {
				t.Errorf("not indented by four spaces:\n%s", pretty)
			}
			for _, l := range lines[:len(lines)-1] {
				if strings.HasSuffix(l, ",") {
					t.Errorf("line %q ends in a bare comma, want \", \"", l)
				}
			}
		})
	}
	for line, want := range map[string]string{
		"show interface Ethernet1/2 | json-pretty | include eth_mtu": `            "eth_mtu": "9216", `,
		"show hostname | json-pretty":                                "{\n    \"hostname\": \"leaf5\"\n}",
		"show module | json-pretty":                                  "ERROR: nxsim has no JSON form of `show module`",
		"show bogus | json-pretty":                                   "% Invalid command at '^' marker.",
	} {
		if out, err := s.execFiltered(line, 0); err != nil || out != want && !strings.Contains(out, want) {
			t.Errorf("%s: %q, %v; want %q", line, out, err, want)
		}
	}
	old := &session{sw: newTestSwitch(t, Options{Platform: "nexus5000"})} // 7.1(4)N1(1)
	if out, _ := old.execFiltered("show version | json-pretty", 0); !strings.HasPrefix(out, strings.Repeat(" ", 15)+"^\n% Invalid command at '^' marker.") {
		t.Errorf("7.1(4)N1(1) show version | json-pretty: %q", out)
	}
}

func isJSONPipe(filter string) bool {
	f := strings.TrimSpace(filter)
	return f == "json" || f == "json-pretty"
}

func TestHasJSONPipe(t *testing.T) {
	for release, want := range map[string]bool{
		"7.1(4)N1(1)": false, "6.2(14)": false, "5.2(9)": false, "7.2(0)D1(1)": true, "7.2(0)N1(1)": true,
		"7.3(1)D1(1)": true, "8.4(2)": true, "": false, "junk": false,
	} {
		if got := hasJSONPipe(release); got != want {
			t.Errorf("hasJSONPipe(%q) = %v, want %v", release, got, want)
		}
	}
}

// FuzzExecJSON: no exec line panics a switch whose release has `| json`,
// and what a `… | json` line prints is either valid JSON or an error.
func FuzzExecJSON(f *testing.F) {
	for _, seed := range []string{
		"show version | json", "sh int e1/1-3 | json", "show interface | json | include eth_mtu",
		"show inventory | json | count", "show hostname | json | frob", "show module | json",
		"show policy-map interface e1/1 output type queuing", "show startup-config interface e1/1",
		"show version | json-pretty", "| json", "show interface ethernet 9/99 | json",
	} {
		f.Add(seed)
	}
	sw, err := New(Options{Platform: "nexus5000", Hostname: "fz", Version: "7.3(0)N1(1)"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		out, _ := (&session{sw: sw}).execFiltered(line, 0)
		cmd, filters := splitPipes(line)
		if len(filters) == 1 && isJSONPipe(filterText(line, filters, 0)) && !strings.Contains(cmd, "?") &&
			!isCLIError(out) && !json.Valid([]byte(out)) {
			t.Fatalf("%q printed neither JSON nor an error:\n%s", line, out)
		}
	})
}
