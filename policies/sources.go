package policies

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"

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
	// redacted are source ranges never shown in a snippet (secret-named
	// attributes, values of sensitive variables), per file name.
	redacted map[string][]hcl.Range
}

func newSources() *Sources {
	return &Sources{files: map[string]*hcl.File{}, digestName: map[string]string{}, redacted: map[string][]hcl.Range{}}
}

// redact hides rng in every snippet printed from its file.
func (s *Sources) redact(rng hcl.Range) {
	s.redacted[rng.Filename] = append(s.redacted[rng.Filename], rng)
}

// displayFiles returns the files as snippets may show them: a copy of each
// file with a redacted range has those bytes replaced by "(sensitive)"
// (padded, or shortened to asterisks) so every other position stays put.
func (s *Sources) displayFiles() map[string]*hcl.File {
	out := make(map[string]*hcl.File, len(s.files))
	for name, f := range s.files {
		rngs := s.redacted[name]
		if f == nil || len(rngs) == 0 {
			out[name] = f
			continue
		}
		b := append([]byte(nil), f.Bytes...)
		for _, r := range rngs {
			maskBytes(b, r.Start.Byte, r.End.Byte)
		}
		out[name] = &hcl.File{Body: f.Body, Bytes: b, Nav: f.Nav}
	}
	return out
}

// maskBytes overwrites b[start:end] with Redacted (then spaces), or with
// asterisks when the range is shorter, keeping line breaks so line numbers
// and columns of the rest of the file do not move.
func maskBytes(b []byte, start, end int) {
	if start < 0 || end > len(b) || start >= end {
		return
	}
	word := []byte(Redacted)
	short := end-start < len(word)
	j := 0
	for i := start; i < end; i++ {
		switch {
		case b[i] == '\n' || b[i] == '\r':
		case short:
			b[i] = '*'
		case j < len(word):
			b[i] = word[j]
			j++
		default:
			b[i] = ' '
		}
	}
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
		files = s.displayFiles()
	}
	if color {
		if err := hcl.NewDiagnosticTextWriter(w, files, 0, true).WriteDiagnostics(diags); err != nil {
			return fmt.Errorf("writing policy diagnostics: %w", err)
		}
		return nil
	}
	// Without colour HCL cannot highlight the offending range, so each
	// diagnostic gets a caret line under its source snippet instead.
	for _, d := range diags {
		var b bytes.Buffer
		if err := hcl.NewDiagnosticTextWriter(&b, files, 0, false).WriteDiagnostic(d); err != nil {
			return fmt.Errorf("writing policy diagnostics: %w", err)
		}
		if _, err := w.Write(withCaret(b.Bytes(), d.Subject)); err != nil {
			return fmt.Errorf("writing policy diagnostics: %w", err)
		}
	}
	return nil
}

// withCaret inserts "^^^" under the snippet line HCL printed for subject
// ("%4d: <source>"), spanning the subject when it is on one line.
func withCaret(text []byte, subject *hcl.Range) []byte {
	if subject == nil || subject.Start.Line < 1 || subject.Start.Column < 1 {
		return text
	}
	prefix := fmt.Sprintf("%4d: ", subject.Start.Line)
	lines := strings.SplitAfter(string(text), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		width := 1
		if subject.End.Line == subject.Start.Line && subject.End.Column > subject.Start.Column {
			width = subject.End.Column - subject.Start.Column
		}
		caret := strings.Repeat(" ", len(prefix)+subject.Start.Column-1) + strings.Repeat("^", width) + "\n"
		out := append([]string{}, lines[:i+1]...)
		out = append(out, caret)
		out = append(out, lines[i+1:]...)
		return []byte(strings.Join(out, ""))
	}
	return text
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
