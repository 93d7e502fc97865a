package plan

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renderedJSON is the canonical JSON of p, for comparing plans whose raw
// JSON values were re-indented on the way.
func renderedJSON(t testing.TB, p *Plan) string {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func writeFixturePlanFile(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.roce")
	if err := WritePlanFile(path, fixtureRenderPlan(), nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestPlanFileRoundTrip(t *testing.T) {
	for name, p := range map[string]*Plan{"fixture": fixtureRenderPlan(), "empty": fixtureEmptyPlan(), "nil": nil} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "plan.roce")
			if err := WritePlanFile(path, p, []string{"not-in-the-plan", ""}); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			got, err := ReadPlanFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := renderedJSON(t, got), renderedJSON(t, p); a != b {
				t.Errorf("round trip changed the plan:\n%s\nwant\n%s", a, b)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("temporary files left behind: %v", entries)
			}
		})
	}
}

// TestPlanFileEveryByteFlipRefused flips each byte of a saved plan in turn:
// every variant must be refused, and every change inside the plan body
// with the checksum message (not a JSON parse error).
func TestPlanFileEveryByteFlipRefused(t *testing.T) {
	_, data := writeFixturePlanFile(t)
	start := bytes.Index(data, []byte(`"plan": `)) + len(`"plan": `)
	end := len(data) - len("\n}\n")
	if start < len(`"plan": `) || data[start] != '{' || data[end-1] != '}' {
		t.Fatalf("unexpected layout around the plan body")
	}
	for i := range data {
		for _, mask := range []byte{0x01, 0x20} {
			mut := bytes.Clone(data)
			mut[i] ^= mask
			_, err := decodePlanFile("plan.roce", mut)
			if err == nil {
				t.Fatalf("flipping byte %d (%q -> %q) was accepted", i, data[i], mut[i])
			}
			if i >= start && i < end && !strings.Contains(err.Error(), "plan file plan.roce has been modified since roce-plan wrote it (checksum mismatch); re-run roce-plan") {
				t.Fatalf("flipping body byte %d (%q -> %q): %v", i, data[i], mut[i], err)
			}
		}
	}
}

func TestReadPlanFileRefuses(t *testing.T) {
	_, good := writeFixturePlanFile(t)
	var jsonRendering bytes.Buffer
	if err := RenderJSON(&jsonRendering, fixtureRenderPlan()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"newer format", bytes.Replace(good, []byte(`"format_version": 2,`), []byte(`"format_version": 3,`), 1),
			"was written by a newer roce (format 3); upgrade roce"},
		{"unknown format", bytes.Replace(good, []byte(`"format_version": 2,`), []byte(`"format_version": "beta",`), 1),
			`has format "beta", which this roce (format 2) cannot read`},
		{"no format", bytes.Replace(good, []byte(`"format_version": 2,`), nil, 1), "has no format_version"},
		{"edited plan, whitespace only", bytes.Replace(good, []byte(`"kind": "nexus5000",`), []byte(`"kind":  "nexus5000",`), 1),
			"(checksum mismatch); re-run roce-plan"},
		{"edited plan, valid JSON", bytes.Replace(good, []byte(`"mtu 9216"`), []byte(`"mtu 1500"`), 1), "(checksum mismatch)"},
		{"checksum removed", bytes.Replace(good, []byte(`"checksum": "sha256:`), []byte(`"checksum": "`), 1), "(checksum mismatch)"},
		{"created_at edited", bytes.Replace(good, []byte(`"created_at": "2026-11-22T02:00:00Z",`+"\n  \"checksum\""), []byte(`"created_at": "2026-11-23T02:00:00Z",`+"\n  \"checksum\""), 1),
			"created_at \"2026-11-23T02:00:00Z\" does not match the plan"},
		{"a JSON rendering, not a saved plan", jsonRendering.Bytes(), `it has no "plan" key: roce-apply needs a file written by roce-plan -out, not -json output`},
		{"wrong kind", bytes.Replace(good, []byte(`"kind": "roce-plan"`), []byte(`"kind": "roce-apply-report"`), 1), `is not a saved plan (kind "roce-apply-report", want "roce-plan")`},
		{"an apply report", []byte(`{"format_version": "1", "kind": "roce-apply-report", "results": []}`), "not a valid roce plan file"},
		{"not JSON", []byte("plan: yes\n"), "not a valid roce plan file"},
		{"empty", nil, "not a valid roce plan file"},
		{"truncated", good[:len(good)/2], "not a valid roce plan file"},
		{"plan not last", bytes.Replace(good, []byte("\n}\n"), []byte(",\n  \"extra\": 1\n}\n"), 1), "(checksum mismatch)"},
		{"header value not a string", bytes.Replace(good, []byte(`"kind": "roce-plan"`), []byte(`"kind": 7`), 1), `"kind" is not a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.data, good) {
				t.Fatal("test case did not modify the file")
			}
			path := filepath.Join(t.TempDir(), "mod.roce")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadPlanFile(path)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q\nwant it to name %s and contain %q", err, path, tc.want)
			}
		})
	}
	if _, err := ReadPlanFile(filepath.Join(t.TempDir(), "missing.roce")); err == nil || !strings.Contains(err.Error(), "missing.roce") {
		t.Errorf("missing file: %v", err)
	}
}

func TestWritePlanFileRefusesSecrets(t *testing.T) {
	p := fixtureRenderPlan()
	p.Targets[1].Warnings = append(p.Targets[1].Warnings, `login as admin with "hunter2" failed`)
	p.Targets[0].Changes[0].Note = "key <pem>\nline2"
	tests := []struct {
		name    string
		redact  []Redaction
		wantErr string
	}{
		{"raw value", []Redaction{{Name: "credentials.lab password", Value: "hunter2"}}, "contains the value of credentials.lab password"},
		{"JSON-escaped value", []Redaction{{Name: "credentials.lab ssh key", Value: "<pem>\nline2"}}, "contains the value of credentials.lab ssh key"},
		{"quoted value", []Redaction{{Name: "q", Value: `"hunter2"`}}, "contains the value of q"},
		{"unnamed", []Redaction{{Value: "nope"}, {Value: "hunter2"}}, "contains the value of redaction #2"},
		{"empty values ignored", []Redaction{{Name: "empty", Value: ""}, {Name: "other", Value: "correct horse"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "plan.roce")
			err := WritePlanFileRedacting(path, p, tc.redact)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			for _, r := range tc.redact {
				if r.Value != "" && strings.Contains(err.Error(), r.Value) {
					t.Errorf("the error leaks the secret: %v", err)
				}
			}
			if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
				t.Error("the plan file was written anyway")
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

func TestWritePlanFileRefusesSecretsByPosition(t *testing.T) {
	p := fixtureRenderPlan()
	p.Targets[0].Warnings = []string{"password hunter2 rejected"}
	path := filepath.Join(t.TempDir(), "plan.roce")
	err := WritePlanFile(path, p, []string{"", "other", "hunter2"})
	if err == nil || !strings.Contains(err.Error(), "contains the value of resolved credential #3") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
	if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
		t.Error("the plan file was written anyway")
	}
}

func TestWritePlanFileErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such", "dir")
	err := WritePlanFile(filepath.Join(dir, "plan.roce"), fixtureRenderPlan(), nil)
	if err == nil || !strings.Contains(err.Error(), "saving plan to "+filepath.Join(dir, "plan.roce")) {
		t.Errorf("err = %v", err)
	}
	// Overwriting an existing plan replaces it whole.
	path, _ := writeFixturePlanFile(t)
	if err := WritePlanFile(path, fixtureEmptyPlan(), nil); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPlanFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Targets) != 2 {
		t.Errorf("overwrite kept the old plan: %d targets", len(got.Targets))
	}
}

// FuzzDecodePlanFile: arbitrary bytes never panic, and whatever is
// accepted survives a write/read cycle unchanged.
func FuzzDecodePlanFile(f *testing.F) {
	// Small seeds: the fuzzer minimises every new input it finds, and
	// minimising kilobytes of fixture stalls a short run.
	small := &Plan{CreatedAt: fixtureRenderTime, Targets: []*TargetPlan{{
		Address: "switch.a", Kind: "gnmi/arista", Fingerprint: "sha256:1",
		Changes: []Change{{Address: "q", Action: ActionCreate, After: "x\n", Disrupt: DisruptionBrief,
			Ops: []Op{{Op: "replace", Path: "/q", Value: []byte(`{"a":1}`)}}}},
		Payload: []byte(`[1]`),
	}}}
	good, err := encodePlanFile(small)
	if err != nil {
		f.Fatal(err)
	}
	empty, err := encodePlanFile(fixtureEmptyPlan())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(empty)
	f.Add([]byte(`{"plan": {}}`))
	f.Add([]byte(`{"format_version":"1","kind":"roce-plan","checksum":"sha256:","plan":}`))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePlanFile("fuzz.roce", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.roce") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		again, err := encodePlanFile(p)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := decodePlanFile("again.roce", again)
		if err != nil {
			t.Fatalf("re-encoded accepted plan is refused: %v", err)
		}
		if renderedJSON(t, p) != renderedJSON(t, p2) {
			t.Error("accepted plan changed on a write/read cycle")
		}
	})
}

// TestReadPlanFileFormat1 reads a plan saved by format 1, which wrote
// format_version as the string "1".
func TestReadPlanFileFormat1(t *testing.T) {
	body := `{
    "format_version": "1",
    "created_at": "2026-11-22T02:00:00Z",
    "policy_dir": "examples/rocev2",
    "policy_digest": "0f3c9a",
    "targets": [
      {
        "address": "switch.n5k-a",
        "kind": "nexus5000",
        "changes": []
      }
    ]
  }`
	sum := sha256.Sum256([]byte(body))
	data := fmt.Sprintf("{\n  \"format_version\": \"1\",\n  \"kind\": \"roce-plan\",\n  \"created_at\": \"2026-11-22T02:00:00Z\",\n  \"checksum\": \"sha256:%x\",\n  \"plan\": %s\n}\n", sum, body)
	path := filepath.Join(t.TempDir(), "v1.roce")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPlanFile(path)
	if err != nil {
		t.Fatalf("a format 1 plan file is refused: %v", err)
	}
	if p.FormatVersion != 1 || p.PolicyDir != "examples/rocev2" || len(p.Targets) != 1 || p.Inputs != nil {
		t.Errorf("read %+v", p)
	}
}
