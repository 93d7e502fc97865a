package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// RenderJSON writes the plan as indented JSON (docs/plan-json.md,
// docs/plan.schema.json). Field order follows the Go types with
// format_version first; map keys are sorted, so the same plan always gives
// the same bytes.
func RenderJSON(w io.Writer, p *Plan) error {
	b, err := marshalPlanIndent(p, "")
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing JSON plan: %w", err)
	}
	return nil
}

// marshalPlanIndent is the one JSON encoding of a plan, shared by RenderJSON
// and the saved-plan file. prefix indents every line after the first, so
// the plan can be nested in an envelope byte for byte.
func marshalPlanIndent(p *Plan, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Notes and configs contain < and &; keep them readable.
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(normalizePlan(p)); err != nil {
		return nil, fmt.Errorf("encoding plan as JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// normalizePlan returns a shallow copy of p in the documented JSON shape:
// format_version set, no null targets, "changes" always an array so
// consumers never have to tell null from [], and error_kind beside every
// error.
func normalizePlan(p *Plan) *Plan {
	out := &Plan{FormatVersion: FormatVersion, Targets: []*TargetPlan{}}
	if p == nil {
		return out
	}
	*out = *p
	out.FormatVersion = FormatVersion // what is written is always this format
	out.Targets = make([]*TargetPlan, 0, len(p.Targets))
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		if t.Changes == nil || t.ErrorKind != t.errorKind() {
			c := *t
			if c.Changes == nil {
				c.Changes = []Change{}
			}
			// Every error has its kind, also in plans made before
			// error_kind existed.
			c.ErrorKind = t.errorKind()
			t = &c
		}
		out.Targets = append(out.Targets, t)
	}
	return out
}

// failureJSON is the document -json prints instead of a plan or report.
type failureJSON struct {
	FormatVersion Version   `json:"format_version"`
	Kind          string    `json:"kind"`
	Error         string    `json:"error"`
	Errors        []Problem `json:"errors"`
}

// RenderFailureJSON writes the document roce-plan -json (kind
// FailureKindPlan) and roce-verify -json (FailureKindVerify) print on
// stdout when the run stops before it has a plan or report — a bad flag,
// a policy with errors, an unreadable variable file — so a CI job always
// parses JSON: msg says why, errors lists each problem (at least one: msg
// itself when there are none). docs/plan-json.md#when-a-run-stops-early.
func RenderFailureJSON(w io.Writer, kind, msg string, problems []Problem) error {
	doc := failureJSON{FormatVersion: FormatVersion, Kind: kind, Error: msg, Errors: problems}
	if len(doc.Errors) == 0 {
		doc.Errors = []Problem{{Message: msg}}
	}
	return writeJSONDocument(w, doc, "error document")
}

// writeJSONDocument writes v as indented JSON, not HTML-escaped, in one
// write; what names it in errors.
func writeJSONDocument(w io.Writer, v any, what string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding the JSON %s: %w", what, err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the JSON %s: %w", what, err)
	}
	return nil
}
