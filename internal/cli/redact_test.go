package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

func TestRedactWriter(t *testing.T) {
	secrets := []plan.Redaction{{Name: "pw", Value: "s3cret-pw"}, {Name: "pw encoded", Value: "czNjcmV0LXB3"}, {Name: "inner", Value: "cret"}}
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"whole", []string{"login failed for admin/s3cret-pw\n"}, "login failed for admin/(sensitive)\n"},
		{"split across writes", []string{"answer: s3c", "ret-p", "w done\n"}, "answer: (sensitive) done\n"},
		{"one byte at a time", strings.Split("x s3cret-pw y czNjcmV0LXB3\n", ""), "x (sensitive) y (sensitive)\n"},
		{"longest first", []string{"s3cret-pw and cret\n"}, "(sensitive) and (sensitive)\n"},
		{"short one inside a long one's start waits", []string{"s3cre", "t-pw\n"}, "(sensitive)\n"},
		{"false start is released", []string{"s3c", "ond\n"}, "s3cond\n"},
		{"prompt shows at once", []string{"Enter a value: "}, "Enter a value: "},
		{"held tail flushed", []string{"ends with s3c"}, "ends with s3c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewRedactWriter(&out, secrets)
			for _, s := range tc.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if tc.name == "prompt shows at once" && out.String() != tc.want {
				t.Fatalf("before Flush: %q, want %q (a prompt must not wait)", out.String(), tc.want)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Fatalf("got %q, want %q", out.String(), tc.want)
			}
		})
	}
}

func FuzzRedactWriter(f *testing.F) {
	f.Add("the password is hunter2!", 3)
	f.Add("hunter2hunter2", 1)
	f.Add("abcdXY hunter", 2)
	secrets := []plan.Redaction{{Value: "hunter2"}, {Value: "ter2x"}, {Value: "abcd"}, {Value: "cdXY"}}
	write := func(t *testing.T, text string, chunk int) string {
		var out bytes.Buffer
		w := NewRedactWriter(&out, secrets)
		for i := 0; i < len(text); i += chunk {
			if _, err := w.Write([]byte(text[i:min(i+chunk, len(text))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	f.Fuzz(func(t *testing.T, text string, chunk int) {
		if chunk < 1 || chunk > len(text) {
			chunk = max(len(text), 1)
		}
		got, whole := write(t, text, chunk), write(t, text, max(len(text), 1))
		// However the text is cut, the output is the same, and holds no
		// secret the input did not build out of the mark itself.
		if got != whole {
			t.Fatalf("chunk %d: %q, in one piece %q", chunk, got, whole)
		}
		for _, s := range secrets {
			if strings.Contains(got, s.Value) && !strings.Contains(strings.ReplaceAll(text, s.Value, ""), s.Value) {
				t.Fatalf("%q leaks %q", got, s.Value)
			}
		}
	})
}

// Once the policy is loaded, the CLIs' outputs (made before it) hide its
// credentials: a device that echoes the password it was sent — in a
// banner, a refusal or a show answer — cannot get it into a plan, a log or
// a PR comment. Writers that are not RedactWriters (tests' buffers) are
// left alone.
func TestRedactSecretsFromThePolicy(t *testing.T) {
	dir := t.TempDir()
	policy := `lossless "roce" {
  udp_port = 4791
  priority = 3
}

credentials "sw" {
  username     = "admin"
  password_env = "ROCE_TEST_REDACT_PASSWORD"
}

switch "leaf1" {
  platform    = "nexus5000"
  address     = "127.0.0.1:1"
  credentials = "sw"
  interfaces  = ["Ethernet1/1"]
  insecure_skip_verify = true
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROCE_TEST_REDACT_PASSWORD", "Echoed-By-Device-42")
	var c Common
	var diag bytes.Buffer
	fab, _, err := c.LoadFabric(dir, &diag)
	if err != nil {
		t.Fatalf("%v\n%s", err, diag.String())
	}
	var out, plain bytes.Buffer
	w := NewRedactWriter(&out, nil)
	RedactSecrets(fab, w, &plain)
	msg := "switch.leaf1: % Login incorrect for admin/Echoed-By-Device-42\n"
	_, _ = w.Write([]byte(msg))
	_, _ = plain.Write([]byte(msg))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "switch.leaf1: % Login incorrect for admin/(sensitive)\n" {
		t.Errorf("redacted output %q", got)
	}
	if plain.String() != msg {
		t.Errorf("a plain writer was changed: %q", plain.String())
	}
	if plan.UnwrapWriter(w) != &out {
		t.Error("UnwrapWriter does not reach the writer underneath")
	}
}
