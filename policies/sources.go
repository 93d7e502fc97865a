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
	// names lists the files in the order they were read: the *.hcl files of
	// the policy directory, then the var files.
	names []string
	// digestName is the name a file contributes to Digest: the base name
	// for policy files and "var-file:<path as given>" for var files, so the
	// digest does not depend on where the policy directory lives.
	digestName map[string]string
}

func newSources() *Sources {
	return &Sources{files: map[string]*hcl.File{}, digestName: map[string]string{}}
}

func (s *Sources) add(name, digestName string, f *hcl.File) {
	if _, ok := s.files[name]; !ok {
		s.names = append(s.names, name)
	}
	s.files[name] = f
	s.digestName[name] = digestName
}

// Files returns the names of the files read, sorted.
func (s *Sources) Files() []string {
	out := append([]string(nil), s.names...)
	sort.Strings(out)
	return out
}

// WriteDiagnostics prints diags in HCL's own format: "Error: summary", the
// file and line, the source line (with the offending range underlined when
// color is on, as HCL does), and the detail. color adds terminal escapes.
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
// Names are base names (var files: the path as given), so the same policy
// checked out in two places has the same digest.
func (s *Sources) Digest() string {
	type entry struct {
		name string
		src  []byte
	}
	entries := make([]entry, 0, len(s.names))
	for _, n := range s.names {
		var src []byte
		if f := s.files[n]; f != nil {
			src = f.Bytes
		}
		entries = append(entries, entry{s.digestName[n], src})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%d\x00", e.name, len(e.src))
		h.Write(e.src)
	}
	return hex.EncodeToString(h.Sum(nil))
}
