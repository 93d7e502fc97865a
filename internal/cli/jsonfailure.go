package cli

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/rocefabric/roce/plan"
)

// DiagnosticsError is LoadFabric's error when the policy does not load:
// the diagnostics were already written for a person; a -json run turns
// them into problems with their file and line (Problems).
type DiagnosticsError struct{ Diags hcl.Diagnostics }

func (e *DiagnosticsError) Error() string { return ErrReported.Error() }

// Is makes errors.Is(err, ErrReported) hold.
func (e *DiagnosticsError) Is(target error) bool { return target == ErrReported }

// Problems lists what err says went wrong: each error diagnostic of a
// policy that did not load, with its file, line and column, else err
// itself. Warnings are not problems. nil gives none.
func Problems(err error) []plan.Problem {
	if err == nil {
		return nil
	}
	var de *DiagnosticsError
	if !errors.As(err, &de) {
		return []plan.Problem{{Message: err.Error()}}
	}
	var out []plan.Problem
	for _, d := range de.Diags {
		if d == nil || d.Severity != hcl.DiagError {
			continue
		}
		p := plan.Problem{Message: d.Summary}
		if d.Detail != "" {
			p.Message += ": " + d.Detail
		}
		if r := d.Subject; r != nil && r.Filename != "" {
			p.File = r.Filename
			if r.Start.Line > 0 {
				p.Line, p.Column = r.Start.Line, r.Start.Column
			}
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return []plan.Problem{{Message: "the policy did not load"}}
	}
	return out
}

// FlagGiven reports whether args set the boolean flag name (-name,
// --name, -name=true; the last one counts), up to a "--". A run that
// fails while parsing its flags uses it to know whether -json was asked
// for. Every argument is looked at, values of other flags too: a value
// that reads "-json" would count, which at worst prints JSON on stdout
// for a run that fails anyway.
func FlagGiven(args []string, name string) bool {
	given := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		n, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if n != name {
			continue
		}
		given = true
		if hasValue {
			given, _ = strconv.ParseBool(v)
		}
	}
	return given
}
