package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLimited: a policy or var file is read whole up to the limit and
// refused above it (before it is read), and only regular files are read.
func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path string
		want       int    // bytes read
		err        string // "" = no error
	}{
		{"empty", write("empty.hcl", 0), 0, ""},
		{"at the limit", write("at.hcl", 1000), 1000, ""},
		{"one byte over", write("over.hcl", 1001), 0, "larger than the limit of 1000 bytes"},
		{"far over", write("far.hcl", 100_000), 0, "larger than the limit of 1000 bytes"},
		{"a directory", dir, 0, "not a regular file"},
		{"missing", filepath.Join(dir, "nope.hcl"), 0, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := readLimited(tc.path, 1000)
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err = %v, want %q", err, tc.err)
			case tc.err == "" && (len(b) != tc.want || bytes.Count(b, []byte("x")) != tc.want):
				t.Errorf("read %d bytes, want %d", len(b), tc.want)
			}
		})
	}
}
