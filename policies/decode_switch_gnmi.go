package policies

import (
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// The gnmi { } block of a switch: per-switch values for facts the gNMI
// reference marks UNCONFIRMED. providers/gnmi applies the same rules to the
// values it takes from its environment fallback.
var gnmiSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "arista_no_drop_bit_order"}, {Name: "origin"}, {Name: "commit_confirm"}, {Name: "commit_rollback"},
	{Name: "encoding"}, {Name: "require_models"},
}}

// MinGNMICommitRollback is the shortest commit_rollback accepted: the
// target must not undo a good commit while the re-read before the confirm
// is still running.
const MinGNMICommitRollback = time.Second

var (
	gnmiBitOrders    = []string{"lsb0", "msb0"}
	gnmiSONiCOrigins = []string{"sonic_db", "sonic-db"}
	gnmiCommitModes  = []string{GNMICommitAuto, GNMICommitOn, GNMICommitOff}
	gnmiEncodings    = []string{"json_ietf", "json"}
	gnmiOriginNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]*$`)
)

func (l *loader) decodeGNMISettings(b *hcl.Block, ctx *hcl.EvalContext, what, profile string) *GNMISettings {
	content, diags := b.Body.Content(gnmiSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	r := newReader(what+" gnmi", content.Attributes, ctx, &l.diags)
	g := &GNMISettings{DeclRange: b.DefRange}
	known := containsString(gnmiProfiles, profile)

	if r.str("arista_no_drop_bit_order", &g.AristaNoDropBitOrder) {
		switch {
		case !containsString(gnmiBitOrders, g.AristaNoDropBitOrder):
			r.attrError("arista_no_drop_bit_order", "Unknown bit order",
				fmt.Sprintf("%s: arista_no_drop_bit_order = %q; use \"lsb0\" (bit n = priority n, priority 3 is \"08\") or \"msb0\" (priority 3 is \"10\").", r.what, g.AristaNoDropBitOrder))
		case known && profile != ProfileArista:
			r.attrError("arista_no_drop_bit_order", "Arista setting on another profile",
				fmt.Sprintf("%s: arista_no_drop_bit_order applies to profile = \"arista\" only, and this switch uses %q; remove it.", r.what, profile))
		}
	}

	var origin string
	if r.str("origin", &origin) {
		g.Origin = &origin
		switch {
		case !known:
		case profile == ProfileOpenConfig || profile == ProfileArista:
			r.attrError("origin", "Origin on an OpenConfig profile",
				fmt.Sprintf("%s: profile %q writes OpenConfig paths, whose origin is always \"openconfig\"; origin applies to profile = \"sonic\" or \"srlinux\". Remove it.", r.what, profile))
		case profile == ProfileSONiC && !containsString(gnmiSONiCOrigins, origin):
			r.attrError("origin", "Unknown SONiC origin",
				fmt.Sprintf("%s: origin = %q; SONiC's gNMI server (sonic-gnmi) serves CONFIG_DB under \"sonic-db\"; \"sonic_db\" is accepted for a target that spells it so.", r.what, origin))
		case profile == ProfileSRLinux && !gnmiOriginNameRe.MatchString(origin):
			r.attrError("origin", "Invalid origin",
				fmt.Sprintf("%s: origin = %q; an origin is a name of letters, digits, '_', '-' and '.', or \"\" to send none.", r.what, origin))
		}
	}

	if r.str("commit_confirm", &g.CommitConfirm) && !containsString(gnmiCommitModes, g.CommitConfirm) {
		r.attrError("commit_confirm", "Unknown commit-confirmed mode",
			fmt.Sprintf("%s: commit_confirm = %q; use \"auto\" (when the target advertises it), \"on\" (require it) or \"off\".", r.what, g.CommitConfirm))
	}
	if r.duration("commit_rollback", &g.CommitRollback) {
		switch {
		case g.CommitRollback < MinGNMICommitRollback:
			r.attrError("commit_rollback", "Rollback timer too short",
				fmt.Sprintf("%s: commit_rollback = %s; the target would undo the commit before it can be verified and confirmed. Use at least %s (the default is 5m).", r.what, g.CommitRollback, MinGNMICommitRollback))
		case g.CommitConfirm == GNMICommitOff:
			r.attrError("commit_rollback", "Rollback timer without commit-confirmed",
				fmt.Sprintf("%s: commit_rollback is the commit-confirmed timer, but commit_confirm = \"off\"; remove one of them.", r.what))
		}
	}
	if r.str("encoding", &g.Encoding) && !containsString(gnmiEncodings, g.Encoding) {
		r.attrError("encoding", "Unknown gNMI encoding",
			fmt.Sprintf("%s: encoding = %q; use \"json_ietf\" or \"json\" to override what the target's Capabilities advertise, or remove it to follow them.", r.what, g.Encoding))
	}
	var require bool
	if r.boolean("require_models", &require) {
		g.RequireModels = &require
	}
	l.record(g, r)
	return g
}

// switchGNMIBlock decodes one gnmi { } block of a switch.
func (l *loader) switchGNMIBlock(b *hcl.Block, ctx *hcl.EvalContext, sw *Switch, what string, isGNMI bool) {
	switch {
	case !isGNMI:
		l.diags = append(l.diags, errorDiag(b.DefRange, "gnmi block on an SSH switch",
			fmt.Sprintf("%s: gnmi { } holds settings for platform = \"gnmi\"; remove it from this %s switch.", what, sw.Platform)))
	case sw.GNMI != nil:
		l.diags = append(l.diags, errorDiag(b.DefRange, "Duplicate gnmi block",
			fmt.Sprintf("%s has more than one gnmi block (the first is at %s); keep one.", what, sw.GNMI.DeclRange)))
	default:
		sw.GNMI = l.decodeGNMISettings(b, ctx, what, sw.Profile)
	}
}
