package policies

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "fmt", "*.in.hcl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no testdata/fmt/*.in.hcl inputs (err %v)", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".in.hcl")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "main.hcl")
			if err := os.WriteFile(path, src, 0o640); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "fmt", name+".golden.hcl")

			// check mode reports without writing.
			changed, err := Format(dir, true)
			if err != nil {
				t.Fatalf("Format check: %v", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(src) {
				t.Fatalf("Format(check=true) modified %s", path)
			}

			changedWrite, err := Format(dir, false)
			if err != nil {
				t.Fatalf("Format: %v", err)
			}
			if !reflect.DeepEqual(changed, changedWrite) {
				t.Errorf("check reported %v, write changed %v", changed, changedWrite)
			}
			got, _ := os.ReadFile(path)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestFormatGolden -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("formatted output differs from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
			wantChanged := []string(nil)
			if string(src) != string(want) {
				wantChanged = []string{path}
			}
			if !reflect.DeepEqual(changed, wantChanged) {
				t.Errorf("changed = %v, want %v", changed, wantChanged)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode changed to %v", fi.Mode().Perm())
			}
			// Formatting is idempotent: a second run changes nothing.
			again, err := Format(dir, true)
			if err != nil || len(again) != 0 {
				t.Errorf("second Format(check) = %v, %v; want no changes", again, err)
			}
		})
	}
}

func TestFormatRefusesSyntaxErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.hcl")
	bad := filepath.Join(dir, "b.hcl")
	goodSrc := "lossless \"x\" {\ncos=4\n}\n"
	if err := os.WriteFile(good, []byte(goodSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("lossless \"x\" {\n  cos = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Format(dir, false)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "does not parse") {
		t.Fatalf("Format error = %v, want one naming %s", err, bad)
	}
	if got, _ := os.ReadFile(good); string(got) != goodSrc {
		t.Errorf("%s was rewritten although another file failed to parse", good)
	}
	if _, err := Format(filepath.Join(dir, "missing"), true); err == nil {
		t.Errorf("Format on a missing directory: no error")
	}
}
