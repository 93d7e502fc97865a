package policies

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// maxRepeatDetails bounds how many distinct details of a collapsed
// diagnostic are listed under it.
const maxRepeatDetails = 5

// collapseRepeats folds diagnostics that report the same problem at the same
// source range into the first one. For a block expanded with for_each (its
// range is in forEach) that is one mistake made once per instance: a
// mistake in a 1,000-host for_each is then one error, not a thousand,
// noting how many instances share it. Anywhere else the repeats come from
// one place checked in several contexts (a class carried by switches of
// two kinds, say); the note says how often, and any repeat whose detail
// says something the first does not is listed, so nothing is lost.
func collapseRepeats(diags hcl.Diagnostics, forEach []hcl.Range) hcl.Diagnostics {
	type key struct {
		sev     hcl.DiagnosticSeverity
		summary string
		rng     hcl.Range
	}
	first := map[key]int{}
	extra := map[int][]string{} // index in out -> the repeats' details
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Subject == nil {
			out = append(out, d)
			continue
		}
		k := key{d.Severity, d.Summary, *d.Subject}
		if i, ok := first[k]; ok {
			extra[i] = append(extra[i], d.Detail)
			continue
		}
		first[k] = len(out)
		out = append(out, d)
	}
	for i, details := range extra {
		d := *out[i]
		if inForEach(*d.Subject, forEach) {
			d.Detail = fmt.Sprintf("%s\n\nThe same problem applies to %d more instance(s) of this block (for_each).", d.Detail, len(details))
		} else {
			d.Detail = d.Detail + repeatNote(d.Detail, details)
		}
		out[i] = &d
	}
	return out
}

// repeatNote lists the distinct details among repeats of a diagnostic
// whose own detail is first.
func repeatNote(first string, details []string) string {
	seen := map[string]bool{first: true}
	var distinct []string
	for _, det := range details {
		if !seen[det] {
			seen[det] = true
			distinct = append(distinct, det)
		}
	}
	if len(distinct) == 0 {
		return fmt.Sprintf("\n\n(Reported %d more time(s) for this place, with the same detail.)", len(details))
	}
	var b strings.Builder
	b.WriteString("\n\nAlso:")
	for i, det := range distinct {
		if i == maxRepeatDetails {
			fmt.Fprintf(&b, "\n- and %d more", len(distinct)-i)
			break
		}
		b.WriteString("\n- " + det)
	}
	return b.String()
}

// inForEach reports whether r lies inside one of the for_each blocks.
func inForEach(r hcl.Range, forEach []hcl.Range) bool {
	for _, b := range forEach {
		if r.Filename == b.Filename && r.Start.Byte >= b.Start.Byte && r.End.Byte <= b.End.Byte {
			return true
		}
	}
	return false
}
