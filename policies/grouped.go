package policies

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// maxNamesInMessage caps how many device names one diagnostic lists.
const maxNamesInMessage = 5

// groupedDiags folds findings that share a cause and a source position into
// one diagnostic listing the affected devices, so a rule broken by 50
// switches from one for_each block reads as one error, not 50.
type groupedDiags struct {
	order []string
	byKey map[string]*group
}

type group struct {
	severity hcl.DiagnosticSeverity
	subject  hcl.Range
	summary  string
	detail   func(names string) string
	names    []string
}

func newGroupedDiags() *groupedDiags { return &groupedDiags{byKey: map[string]*group{}} }

// add records that device name breaks the rule identified by key; detail
// builds the message from the (abbreviated) list of names.
func (g *groupedDiags) add(key string, sev hcl.DiagnosticSeverity, subject hcl.Range, summary, name string, detail func(names string) string) {
	k := fmt.Sprintf("%s|%s", key, subject)
	gr, ok := g.byKey[k]
	if !ok {
		gr = &group{severity: sev, subject: subject, summary: summary, detail: detail}
		g.byKey[k] = gr
		g.order = append(g.order, k)
	}
	gr.names = append(gr.names, name)
}

func (g *groupedDiags) diagnostics() hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, k := range g.order {
		gr := g.byKey[k]
		out = append(out, &hcl.Diagnostic{Severity: gr.severity, Summary: gr.summary, Detail: gr.detail(nameList(gr.names)), Subject: gr.subject.Ptr()})
	}
	return out
}

// nameList renders `a, b, c` or `a, b, c, d, e and 45 more`.
func nameList(names []string) string {
	if len(names) <= maxNamesInMessage {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamesInMessage], ", "), len(names)-maxNamesInMessage)
}
