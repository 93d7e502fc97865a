package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// Sources keeps the bytes of every file a Load read (policy files and
// -var-file files), so diagnostics can be printed with the source line and
// a caret, and so a saved plan can record which policy produced it.
type Sources struct {
	files map[string]*hcl.File
	// policy lists the *.hcl file names of the policy directory plus the
	// var files, in the order they were read.
	names []string
}

func newSources() *Sources {
	return &Sources{files: map[string]*hcl.File{}}
}

func (s *Sources) add(name string, f *hcl.File) {
	if _, ok := s.files[name]; !ok {
		s.names = append(s.names, name)
	}
	s.files[name] = f
}

// Files returns the names of the files read, sorted.
func (s *Sources) Files() []string {
	out := append([]string(nil), s.names...)
	sort.Strings(out)
	return out
}

// WriteDiagnostics prints diags in HCL's own format: "Error: summary", the
// file:line:col, the source line with the offending range underlined, and
// the detail. color adds terminal escape codes.
func (s *Sources) WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, color bool) error {
	files := map[string]*hcl.File{}
	if s != nil {
		files = s.files
	}
	if err := hcl.NewDiagnosticTextWriter(w, files, 0, color).WriteDiagnostics(diags); err != nil {
		return fmt.Errorf("writing policy diagnostics: %w", err)
	}
	return nil
}

// Digest is a sha256 over the files read, sorted by name (each contributes
// its name and bytes), so a saved plan can tell whether the policy changed.
func (s *Sources) Digest() string {
	h := sha256.New()
	for _, name := range s.Files() {
		f := s.files[name]
		var src []byte
		if f != nil {
			src = f.Bytes
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(src))
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil))
}
