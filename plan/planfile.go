package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// planFileKind marks a saved plan, so roce-apply can tell it from a JSON
// rendering or an apply report handed to it by mistake.
const planFileKind = "roce-plan"

// checksumPrefix names the digest algorithm inside the checksum field.
const checksumPrefix = "sha256:"

// maxPlanFileSize bounds what ReadPlanFile reads, so a wrong path (a
// device, a huge log) fails fast instead of filling memory.
const maxPlanFileSize = 256 << 20

// Redaction is a credential that must never appear in a saved plan: Name
// says which one it is in errors (e.g. "credentials.lab password"), Value
// is what is searched for and never printed.
type Redaction struct {
	Name  string
	Value string
}

// The saved plan is an envelope around the JSON plan (docs/plan-json.md,
// "Saved plan file"):
//
//	{
//	  "format_version": 2,
//	  "kind": "roce-plan",
//	  "created_at": "...",
//	  "checksum": "sha256:<hex>",
//	  "plan": { ... }
//	}
//
// The checksum is the SHA-256 of the plan value's bytes exactly as they
// stand in the file, and "plan" is always the last key. The reader finds
// those bytes without parsing them, so a change to any byte of the plan —
// even one that breaks its JSON — is reported as a modification, not as a
// parse error.

// WritePlanFile saves p at path atomically (a temporary file in the same
// directory, then rename) with mode 0600. It refuses, writing nothing, if
// any non-empty string of redact (resolved passwords and keys) appears in
// the encoded plan, raw or JSON-escaped; the error names the credential by
// its position in redact, never by value. WritePlanFileRedacting gives
// errors with real credential names.
func WritePlanFile(path string, p *Plan, redact []string) error {
	named := make([]Redaction, len(redact))
	for i, v := range redact {
		named[i] = Redaction{Name: fmt.Sprintf("resolved credential #%d", i+1), Value: v}
	}
	return WritePlanFileRedacting(path, p, named)
}

// WritePlanFileRedacting is WritePlanFile with named redactions, so the
// refusal can say which credential would have leaked.
func WritePlanFileRedacting(path string, p *Plan, redact []Redaction) error {
	data, err := encodePlanFile(withSavedPaths(p, path))
	if err != nil {
		return fmt.Errorf("saving plan to %s: %w", path, err)
	}
	if err := checkRedactions(data, redact); err != nil {
		return fmt.Errorf("saving plan to %s: %w", path, err)
	}
	if err := writeFileAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("saving plan to %s: %w", path, err)
	}
	return nil
}

// encodePlanFile builds the envelope bytes for p.
func encodePlanFile(p *Plan) ([]byte, error) {
	n := normalizePlan(p)
	body, err := marshalPlanIndent(n, "  ")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	created, err := json.Marshal(n.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("encoding created_at: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"format_version\": %d,\n", n.FormatVersion)
	fmt.Fprintf(&b, "  \"kind\": %s,\n", strconv.Quote(planFileKind))
	fmt.Fprintf(&b, "  \"created_at\": %s,\n", created)
	fmt.Fprintf(&b, "  \"checksum\": %s,\n", strconv.Quote(checksumPrefix+hex.EncodeToString(sum[:])))
	b.WriteString("  \"plan\": ")
	b.Write(body)
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// checkRedactions fails if a secret value occurs in data.
func checkRedactions(data []byte, redact []Redaction) error {
	for i, r := range redact {
		if r.Value == "" {
			continue
		}
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("redaction #%d", i+1)
		}
		if bytes.Contains(data, []byte(r.Value)) || bytes.Contains(data, jsonEscaped(r.Value)) {
			return fmt.Errorf("refusing to save the plan: it contains the value of %s; "+
				"secrets must never be in a plan (report this as a bug in the provider that produced it)", name)
		}
	}
	return nil
}

// jsonEscaped is s as it would appear inside a JSON string in the file.
func jsonEscaped(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	b := bytes.TrimSpace(buf.Bytes())
	return b[1 : len(b)-1]
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path, so a reader never sees a half-written plan.
func writeFileAtomic(path string, data []byte, mode os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("creating a temporary file in %s: %w", dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("setting mode of %s: %w", tmp, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp, path, err)
	}
	return nil
}

// ReadPlanFile reads a plan saved by WritePlanFile. It refuses a file
// written by a newer format, a file whose plan was changed in any byte
// (checksum mismatch), and anything that is not a saved plan, with an
// error naming the file and what to do.
func ReadPlanFile(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPlanFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading plan file %s: %w", path, err)
	}
	if len(data) > maxPlanFileSize {
		return nil, fmt.Errorf("plan file %s is larger than %d MiB; it is not a plan written by roce-plan", path, maxPlanFileSize>>20)
	}
	return decodePlanFile(path, data)
}

// planFileHeader is the envelope around the plan body.
type planFileHeader struct {
	FormatVersion json.RawMessage // 2, or "1" in format 1 files
	Kind          string
	CreatedAt     string
	Checksum      string
}

// decodePlanFile parses and verifies a saved plan; name is used in errors.
func decodePlanFile(name string, data []byte) (*Plan, error) {
	h, body, err := splitPlanFile(data)
	if err != nil {
		return nil, fmt.Errorf("plan file %s is not a valid roce plan file (%v); re-run roce-plan -out %s", name, err, name)
	}
	if h.Kind != planFileKind {
		return nil, fmt.Errorf("plan file %s is not a saved plan (kind %q, want %q); pass a file written by roce-plan -out", name, h.Kind, planFileKind)
	}
	var version Version
	if err := json.Unmarshal(h.FormatVersion, &version); err != nil || (version != 1 && version != FormatVersion) {
		return nil, formatVersionError(name, h.FormatVersion)
	}
	want, ok := strings.CutPrefix(h.Checksum, checksumPrefix)
	sum := sha256.Sum256(body)
	if !ok || want != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("plan file %s has been modified since roce-plan wrote it (checksum mismatch); re-run roce-plan", name)
	}
	var p Plan
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("plan file %s: the plan does not decode although its checksum matches (%v); re-run roce-plan", name, err)
	}
	if p.FormatVersion != version {
		return nil, fmt.Errorf("plan file %s: the plan says format %d but the file says %d; re-run roce-plan", name, p.FormatVersion, version)
	}
	created, err := time.Parse(time.RFC3339Nano, h.CreatedAt)
	if err != nil || !created.Equal(p.CreatedAt) {
		return nil, fmt.Errorf("plan file %s has been modified since roce-plan wrote it (created_at %q does not match the plan); re-run roce-plan", name, h.CreatedAt)
	}
	return &p, nil
}

// formatVersionError explains an unsupported format version.
func formatVersionError(name string, raw json.RawMessage) error {
	if len(raw) == 0 {
		return fmt.Errorf("plan file %s has no format_version; it was not written by roce-plan -out", name)
	}
	var n Version
	if err := json.Unmarshal(raw, &n); err == nil && n > FormatVersion {
		return fmt.Errorf("plan file %s was written by a newer roce (format %d); upgrade roce to apply it, or re-run roce-plan with this version", name, n)
	}
	return fmt.Errorf("plan file %s has format %s, which this roce (format %d) cannot read; re-run roce-plan", name, raw, FormatVersion)
}

// jsonSpace is JSON's whitespace (not Unicode's: a flipped newline must
// not be trimmed away as a vertical tab).
const jsonSpace = " \t\r\n"

// splitPlanFile reads the envelope's header keys and returns the exact
// bytes of the plan value, which must be the last key.
func splitPlanFile(data []byte) (planFileHeader, []byte, error) {
	var h planFileHeader
	trimmed := bytes.TrimRight(data, jsonSpace)
	if len(trimmed) == 0 || trimmed[len(trimmed)-1] != '}' {
		return h, nil, errors.New("it does not end with '}'")
	}
	end := len(trimmed) - 1
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return h, nil, errors.New("it does not start with a JSON object")
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return h, nil, fmt.Errorf("malformed JSON near byte %d: %v", dec.InputOffset(), err)
		}
		key, ok := tok.(string)
		if !ok {
			// The object ended: a -json rendering or an apply report.
			return h, nil, errors.New(`it has no "plan" key: roce-apply needs a file written by roce-plan -out, not -json output`)
		}
		if key == "plan" {
			off := int(dec.InputOffset())
			if off > end {
				return h, nil, errors.New("the plan value is missing")
			}
			rest := bytes.TrimLeft(trimmed[off:end], jsonSpace)
			rest, ok := bytes.CutPrefix(rest, []byte(":"))
			if !ok {
				return h, nil, fmt.Errorf("malformed JSON near byte %d: no ':' after \"plan\"", off)
			}
			body := bytes.Trim(rest, jsonSpace)
			if len(body) == 0 {
				return h, nil, errors.New("the plan value is empty")
			}
			if h.Kind == "" && len(h.FormatVersion) == 0 && h.Checksum == "" {
				return h, nil, errors.New("the envelope has no header before \"plan\"")
			}
			return h, body, nil
		}
		var dst *string
		switch key {
		case "kind":
			dst = &h.Kind
		case "created_at":
			dst = &h.CreatedAt
		case "checksum":
			dst = &h.Checksum
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return h, nil, fmt.Errorf("malformed JSON in %q: %v", key, err)
		}
		if key == "format_version" {
			h.FormatVersion = v
			continue
		}
		if dst == nil {
			// Unknown key: a newer format may add some; the version check
			// then explains. A renamed known key is caught as missing.
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return h, nil, fmt.Errorf("%q is not a string", key)
		}
	}
}
