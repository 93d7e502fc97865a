package policies

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// RoCE wire constants.
const (
	roceV1Ethertype = 0x8915
	roceV2UDPPort   = 4791
	maxPriority     = 7
	maxDSCP         = 63
)

var losslessSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "ethertype"}, {Name: "udp_port"}, {Name: "all"}, {Name: "cos"}, {Name: "dscp"},
		{Name: "priority"}, {Name: "mtu"}, {Name: "bandwidth_percent"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "ecn"}, {Type: "pfc_watchdog"}},
}

var ecnSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "min_threshold_kb", Required: true}, {Name: "max_threshold_kb", Required: true}, {Name: "probability"},
}}

var watchdogSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "detection_ms"}, {Name: "restoration_ms"}, {Name: "action"},
}}

// matchAttrs are the attributes that select a class's traffic, in the order
// they are reported.
var matchAttrs = []string{"ethertype", "udp_port", "all", "cos", "dscp"}

func (l *loader) decodeLossless(b *hcl.Block, ctx *hcl.EvalContext, f *Fabric) {
	name := b.Labels[0]
	what := fmt.Sprintf("lossless %q", name)
	if l.declared == nil {
		l.declared = map[string]hcl.Range{}
	}
	if prev, dup := l.declared["lossless\x00"+name]; dup {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Duplicate lossless class",
			fmt.Sprintf("%s is already defined at %s; rename or remove one.", what, prev)))
		return
	}
	l.declared["lossless\x00"+name] = b.DefRange
	content, diags := b.Body.Content(losslessSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	r := newReader(what, content.Attributes, ctx, &l.diags)
	c := &Lossless{Name: name, DeclRange: b.DefRange}
	l.decodeMatch(r, c, b.DefRange)

	if r.has("priority") {
		r.integer("priority", &c.Priority, 0, maxPriority)
	} else if c.Match.Kind != MatchCoS && c.Match.Kind != "" {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing priority",
			fmt.Sprintf("%s matches by %s, so it needs priority = <0-7>: the PFC priority (802.1p CoS) its frames carry on the wire.", what, c.Match.Kind)))
	} else if len(c.Match.CoS) > 0 {
		c.Priority = c.Match.CoS[0]
	}
	if c.Match.Kind == MatchCoS && r.has("priority") && !containsInt(c.Match.CoS, c.Priority) {
		r.attrError("priority", "Priority outside the class",
			fmt.Sprintf("%s matches cos %s, but priority = %d; pick one of the matched CoS values or drop priority.", what, joinInts(c.Match.CoS), c.Priority))
	}
	r.integer("mtu", &c.MTU, 576, 65535)
	r.integer("bandwidth_percent", &c.BandwidthPercent, 1, 100)

	for _, eb := range content.Blocks {
		switch eb.Type {
		case "ecn":
			if c.ECN != nil {
				l.diags = append(l.diags, errorDiag(eb.DefRange, "Duplicate ecn block", what+" has more than one ecn block; keep one."))
				continue
			}
			c.ECN = l.decodeECN(eb, ctx, what)
			r.ranges["ecn"] = eb.DefRange
		case "pfc_watchdog":
			if c.PFCWatchdog != nil {
				l.diags = append(l.diags, errorDiag(eb.DefRange, "Duplicate pfc_watchdog block", what+" has more than one pfc_watchdog block; keep one."))
				continue
			}
			c.PFCWatchdog = l.decodeWatchdog(eb, ctx, what)
			r.ranges["pfc_watchdog"] = eb.DefRange
		}
	}
	l.record(c, r)
	f.Lossless = append(f.Lossless, c)
}

// decodeMatch requires exactly one match attribute (udp_port may carry dscp
// as a refinement: RoCE v2 marked with a DSCP).
func (l *loader) decodeMatch(r *reader, c *Lossless, decl hcl.Range) {
	var set []string
	for _, a := range matchAttrs {
		if r.has(a) {
			set = append(set, a)
		}
	}
	if len(set) == 2 && set[0] == "udp_port" && set[1] == "dscp" {
		set = set[:1]
	}
	switch len(set) {
	case 0:
		l.diags = append(l.diags, errorDiag(decl, "Missing match",
			fmt.Sprintf("%s selects no traffic. Set exactly one of: ethertype = \"0x8915\" (RoCE v1), udp_port = 4791 (RoCE v2), all = true, cos = <0-7>, dscp = <0-63>.", r.what)))
		return
	case 1:
	default:
		r.attrError(set[1], "Conflicting match",
			fmt.Sprintf("%s sets both %s and %s; a class matches in exactly one way. Keep one (udp_port may be refined with dscp).", r.what, set[0], set[1]))
		return
	}
	switch set[0] {
	case "ethertype":
		c.Match.Kind = MatchEthertype
		v, ok := r.value("ethertype", cty.DynamicPseudoType, "a string or number")
		if !ok {
			return
		}
		et, err := parseEthertype(v)
		if err != nil {
			r.attrError("ethertype", "Invalid ethertype", fmt.Sprintf("%s: %v. RoCE v1 is ethertype = \"0x8915\".", r.what, err))
			return
		}
		c.Match.Ethertype = et
		if et != roceV1Ethertype {
			l.diags = append(l.diags, warningDiag(r.rangeOf("ethertype", decl), "Not RoCE v1",
				fmt.Sprintf("%s matches ethertype 0x%04x; RoCE v1 is 0x8915.", r.what, et)))
		}
	case "udp_port":
		c.Match.Kind = MatchUDPPort
		if r.integer("udp_port", &c.Match.UDPPort, 1, 65535) && c.Match.UDPPort != roceV2UDPPort {
			l.diags = append(l.diags, warningDiag(r.rangeOf("udp_port", decl), "Not RoCE v2",
				fmt.Sprintf("%s matches UDP port %d; RoCE v2 is 4791.", r.what, c.Match.UDPPort)))
		}
		if r.has("dscp") {
			c.Match.DSCP = l.readIntSet(r, "dscp", maxDSCP)
		}
	case "all":
		var all bool
		if r.boolean("all", &all) && !all {
			r.attrError("all", "Invalid match", fmt.Sprintf("%s: all = false selects nothing; write all = true or use another match.", r.what))
			return
		}
		c.Match.Kind = MatchAll
	case "cos":
		c.Match.Kind = MatchCoS
		c.Match.CoS = l.readIntSet(r, "cos", maxPriority)
	case "dscp":
		c.Match.Kind = MatchDSCP
		c.Match.DSCP = l.readIntSet(r, "dscp", maxDSCP)
	}
}

func (l *loader) readIntSet(r *reader, name string, max int) []int {
	v, ok := r.value(name, cty.DynamicPseudoType, "a number, a range string or a list")
	if !ok {
		return nil
	}
	out, err := parseIntSet(v, max)
	if err != nil {
		r.attrError(name, "Invalid "+name, fmt.Sprintf("%s: %s: %v. Write e.g. %s = 3, %s = \"2-4\" or %s = [1, \"3-5\"].", r.what, name, err, name, name, name))
		return nil
	}
	return out
}

func parseEthertype(v cty.Value) (uint16, error) {
	var n uint64
	switch v.Type() {
	case cty.Number:
		f, _ := v.AsBigFloat().Uint64()
		if !v.AsBigFloat().IsInt() {
			return 0, fmt.Errorf("%s is not a whole number", v.AsBigFloat().String())
		}
		n = f
	case cty.String:
		s := strings.TrimSpace(v.AsString())
		p, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number (HCL has no hex literals, so quote it: \"0x8915\")", s)
		}
		n = p
	default:
		return 0, fmt.Errorf("ethertype must be a string or number, got %s", friendlyType(v.Type()))
	}
	if n < 0x0600 || n > 0xffff {
		return 0, fmt.Errorf("0x%x is not an Ethertype (0x0600-0xffff)", n)
	}
	return uint16(n), nil
}

func (l *loader) decodeECN(b *hcl.Block, ctx *hcl.EvalContext, what string) *ECN {
	content, diags := b.Body.Content(ecnSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	r := newReader(what+" ecn", content.Attributes, ctx, &l.diags)
	e := &ECN{Probability: 100}
	r.integer("min_threshold_kb", &e.MinThresholdKB, 1, 1<<20)
	r.integer("max_threshold_kb", &e.MaxThresholdKB, 1, 1<<20)
	r.integer("probability", &e.Probability, 0, 100)
	if e.MinThresholdKB > 0 && e.MaxThresholdKB > 0 && e.MinThresholdKB > e.MaxThresholdKB {
		r.attrError("max_threshold_kb", "Invalid ECN thresholds",
			fmt.Sprintf("%s: max_threshold_kb (%d) is below min_threshold_kb (%d); marking starts at the minimum and reaches its probability at the maximum.", r.what, e.MaxThresholdKB, e.MinThresholdKB))
	}
	return e
}

func (l *loader) decodeWatchdog(b *hcl.Block, ctx *hcl.EvalContext, what string) *PFCWatchdog {
	content, diags := b.Body.Content(watchdogSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	r := newReader(what+" pfc_watchdog", content.Attributes, ctx, &l.diags)
	w := &PFCWatchdog{DetectionMS: 200, RestorationMS: 200, Action: "drop"}
	r.integer("detection_ms", &w.DetectionMS, 1, 60000)
	r.integer("restoration_ms", &w.RestorationMS, 1, 60000)
	if r.str("action", &w.Action) && w.Action != "drop" && w.Action != "forward" {
		r.attrError("action", "Invalid pfc_watchdog action",
			fmt.Sprintf("%s: action = %q; use \"drop\" or \"forward\".", r.what, w.Action))
	}
	return w
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
