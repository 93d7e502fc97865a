package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

func TestFlagGiven(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{"absent", []string{"-var-file", "lab.vars", "examples/lab"}, false},
		{"single dash", []string{"-json", "examples/lab"}, true},
		{"double dash", []string{"--json"}, true},
		{"after a flag's value", []string{"-var-file", "lab.vars", "-json"}, true},
		{"after a bad flag", []string{"-bogus", "-json"}, true},
		{"=true", []string{"-json=true"}, true},
		{"=false", []string{"-json=false"}, false},
		{"last wins", []string{"-json", "-json=0"}, false},
		{"not a value", []string{"-json=maybe"}, false},
		{"after --", []string{"--", "-json"}, false},
		{"other flag with the prefix", []string{"-jsonx"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FlagGiven(tc.args, "json"); got != tc.want {
				t.Errorf("FlagGiven(%q) = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}

// A policy that does not load gives one problem per error, at its file
// and line; warnings are left out; any other error is one problem.
func TestProblemsFromLoadFabric(t *testing.T) {
	dir := t.TempDir()
	hcl := "lossless \"a\" {\n  priority = 3\n  dscp = [26]\n  bandwith_percent = 40\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	var c Common
	_, _, err := c.LoadFabric(dir, io.Discard)
	if !errors.Is(err, ErrReported) {
		t.Fatalf("LoadFabric: %v, want ErrReported", err)
	}
	ps := Problems(err)
	if len(ps) == 0 {
		t.Fatal("no problems")
	}
	found := false
	for _, p := range ps {
		if p.File == filepath.Join(dir, "main.hcl") && p.Line == 4 && p.Column > 0 && p.Message != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("no problem at main.hcl line 4: %+v", ps)
	}
	if got := Problems(errors.New("-target x: no such switch")); !reflect.DeepEqual(got, []plan.Problem{{Message: "-target x: no such switch"}}) {
		t.Errorf("Problems(plain) = %+v", got)
	}
	if Problems(nil) != nil {
		t.Error("Problems(nil) is not empty")
	}
}

// FlagGiven agrees with Go's flag package wherever the flag package
// parses the arguments as flags only, and never panics.
func FuzzFlagGiven(f *testing.F) {
	for _, s := range []string{"-json", "--json=false", "-json=1 -json=0", "-- -json", "-jsonx", "-json=maybe", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		got := FlagGiven(args, "json")
		fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		want := fs.Bool("json", false, "")
		if err := fs.Parse(args); err == nil && fs.NArg() == 0 && got != *want {
			t.Errorf("FlagGiven(%q) = %v; the flag package parses -json as %v", args, got, *want)
		}
	})
}
