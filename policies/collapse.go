package policies

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// collapseRepeats folds diagnostics that report the same problem at the same
// source range — typically one for_each block that is wrong for every
// instance — into the first one, noting how many more instances share it.
// A mistake in a 1,000-host for_each is then one error, not a thousand.
func collapseRepeats(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		sev     hcl.DiagnosticSeverity
		summary string
		rng     hcl.Range
	}
	first := map[key]int{}
	extra := map[int]int{}
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Subject == nil {
			out = append(out, d)
			continue
		}
		k := key{d.Severity, d.Summary, *d.Subject}
		if i, ok := first[k]; ok {
			extra[i]++
			continue
		}
		first[k] = len(out)
		out = append(out, d)
	}
	for i, n := range extra {
		d := *out[i]
		d.Detail = fmt.Sprintf("%s\n\nThe same problem applies to %d more instance(s) of this block (for_each).", d.Detail, n)
		out[i] = &d
	}
	return out
}
