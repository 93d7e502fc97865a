package policies

import (
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rocefabric/roce/platforms"
)

var switchSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "for_each"}, {Name: "platform", Required: true}, {Name: "profile"}, {Name: "address"}, {Name: "capture"},
		{Name: "credentials"}, {Name: "interfaces"}, {Name: "fcoe"}, {Name: "vdc"}, {Name: "lossless"},
		{Name: "host_key"}, {Name: "known_hosts"}, {Name: "insecure_skip_verify"}, {Name: "save_config"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "tls"}, {Type: "gnmi"}},
}

var tlsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "ca_file"}, {Name: "cert_file"}, {Name: "key_file"}, {Name: "server_name"},
	{Name: "insecure_skip_verify"}, {Name: "plaintext"},
}}

var gnmiProfiles = []string{ProfileOpenConfig, ProfileArista, ProfileSONiC, ProfileSRLinux}

func (l *loader) decodeSwitchBlock(b *hcl.Block, ctx *hcl.EvalContext, f *Fabric) {
	f.Switches = append(f.Switches, decodeInstances(l, b, switchSchema, ctx, "switch",
		func(content *hcl.BodyContent, inst instance) (*Switch, bool) {
			sw := l.decodeSwitch(b, content, inst)
			return sw, sw != nil
		})...)
}

func (l *loader) decodeSwitch(b *hcl.Block, content *hcl.BodyContent, inst instance) *Switch {
	what := fmt.Sprintf("switch %q", inst.name)
	if inst.name == "" {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Empty switch name", what+": a switch needs a non-empty name (check the for_each keys)."))
		return nil
	}
	r := newReader(what, content.Attributes, inst.ctx, &l.diags)
	sw := &Switch{Name: inst.name, DeclRange: b.DefRange}

	if r.str("platform", &sw.Platform) {
		switch sw.Platform {
		case PlatformNexus5000, PlatformNexus7000, PlatformGNMI:
		default:
			r.attrError("platform", "Unknown platform",
				fmt.Sprintf("%s: platform = %q; use \"nexus5000\", \"nexus7000\" or \"gnmi\".", what, sw.Platform))
		}
	}
	isGNMI := sw.Platform == PlatformGNMI
	isNexus := sw.Platform == PlatformNexus5000 || sw.Platform == PlatformNexus7000
	if r.str("profile", &sw.Profile) {
		if !isGNMI {
			r.attrError("profile", "Profile on a non-gNMI switch", fmt.Sprintf("%s: profile only applies to platform = \"gnmi\"; remove it.", what))
		} else if !containsString(gnmiProfiles, sw.Profile) {
			r.attrError("profile", "Unknown gNMI profile",
				fmt.Sprintf("%s: profile = %q; use \"openconfig\", \"arista\", \"sonic\" or \"srlinux\".", what, sw.Profile))
		}
	} else if isGNMI {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing gNMI profile",
			fmt.Sprintf("%s uses gNMI; set profile = \"openconfig\", \"arista\", \"sonic\" or \"srlinux\" so the right PFC model is used.", what)))
	}

	r.str("address", &sw.Address)
	if r.str("capture", &sw.Capture) {
		sw.Capture = l.path(sw.Capture)
	}
	switch {
	case sw.Address == "" && sw.Capture == "":
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing address",
			fmt.Sprintf("%s needs address = \"host\" or \"host:port\" (or capture = \"dir\" to review against a saved capture).", what)))
	case sw.Address != "" && sw.Capture != "":
		r.attrError("capture", "Both address and capture",
			fmt.Sprintf("%s sets address and capture; a switch is either live or a saved capture. Remove one.", what))
	}
	if sw.Address != "" {
		if err := checkAddress(sw.Address); err != nil {
			r.attrError("address", "Invalid address", fmt.Sprintf("%s: %v.", what, err))
		}
	}

	r.str("credentials", &sw.Credentials)
	if isNexus && sw.Address != "" && sw.Credentials == "" {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing credentials",
			fmt.Sprintf("%s is reached over SSH; set credentials = \"<name of a credentials block>\".", what)))
	}

	var specs []string
	if r.strList("interfaces", &specs) {
		l.interfaces(r, sw, specs, isGNMI)
	}
	if r.boolean("fcoe", &sw.FCoE) && sw.FCoE && !isNexus {
		r.attrError("fcoe", "FCoE on a gNMI switch", fmt.Sprintf("%s: fcoe applies to Nexus switches only; remove it.", what))
	}
	if r.str("vdc", &sw.VDC) && sw.Platform != PlatformNexus7000 {
		r.attrError("vdc", "VDC on a non-Nexus 7000", fmt.Sprintf("%s: vdc only exists on platform = \"nexus7000\"; remove it.", what))
	}
	if r.strList("lossless", &sw.Lossless) {
		seen := map[string]bool{}
		for _, n := range sw.Lossless {
			if seen[n] {
				r.attrError("lossless", "Duplicate class", fmt.Sprintf("%s: lossless lists %q twice; list each class once.", what, n))
				break
			}
			seen[n] = true
		}
	}

	sw.SaveConfig = SaveConfigAuto
	if r.str("save_config", &sw.SaveConfig) {
		switch {
		case sw.SaveConfig != SaveConfigAuto && sw.SaveConfig != SaveConfigAlways && sw.SaveConfig != SaveConfigNever:
			r.attrError("save_config", "Unknown save_config",
				fmt.Sprintf("%s: save_config = %q; use \"auto\" (save after a verified apply unless the switch has unsaved changes that are not roce's), \"always\" or \"never\".", what, sw.SaveConfig))
			sw.SaveConfig = SaveConfigAuto
		case isGNMI && sw.SaveConfig == SaveConfigAlways:
			r.attrError("save_config", "No save over gNMI",
				fmt.Sprintf("%s: save_config = \"always\", but gNMI has no standard operation that saves the configuration (docs/gnmi-profiles.md#saving-the-configuration); use \"auto\" or \"never\": roce-apply then names the command to save on the switch.", what))
			sw.SaveConfig = SaveConfigAuto
		}
	}

	r.str("host_key", &sw.HostKey)
	if r.str("known_hosts", &sw.KnownHosts) {
		sw.KnownHosts = l.path(sw.KnownHosts)
	}
	r.trustSetting("insecure_skip_verify", &sw.InsecureSkipVerify)
	if isGNMI {
		for _, a := range []string{"host_key", "known_hosts", "insecure_skip_verify"} {
			if r.has(a) {
				r.attrError(a, "SSH setting on a gNMI switch", fmt.Sprintf("%s: %s is for SSH (Nexus); a gNMI switch is verified with a tls { } block.", what, a))
			}
		}
	}
	if sw.InsecureSkipVerify && (sw.HostKey != "" || sw.KnownHosts != "") {
		r.attrError("insecure_skip_verify", "Contradictory host key settings",
			fmt.Sprintf("%s pins a host key and also skips verification; remove insecure_skip_verify.", what))
	}

	for _, tb := range content.Blocks {
		if tb.Type == "gnmi" {
			l.switchGNMIBlock(tb, inst.ctx, sw, what, isGNMI)
			continue
		}
		if !isGNMI {
			l.diags = append(l.diags, errorDiag(tb.DefRange, "TLS on an SSH switch",
				fmt.Sprintf("%s: tls { } is for gNMI switches; a Nexus switch is verified with host_key or known_hosts.", what)))
			continue
		}
		if sw.TLS != nil {
			l.diags = append(l.diags, errorDiag(tb.DefRange, "Duplicate tls block", what+" has more than one tls block; keep one."))
			continue
		}
		sw.TLS = l.decodeTLS(tb, inst.ctx, what)
	}
	l.record(sw, r)
	return sw
}

func (l *loader) interfaces(r *reader, sw *Switch, specs []string, generic bool) {
	seen := map[string]bool{}
	for _, spec := range specs {
		// A gNMI item that is blank or holds a control character never
		// reaches the list syntax (which trims white space): it gets the
		// verdict and reason plan gives that name, from the same rule.
		if generic && (strings.TrimSpace(spec) == "" || strings.IndexFunc(spec, isControl) >= 0) {
			if err := platforms.CheckInterfaceName(capsKey(sw), spec); err != nil {
				r.attrError("interfaces", "Invalid interface name", fmt.Sprintf("%s: %v.", r.what, err))
				return
			}
		}
		if i := strings.IndexFunc(spec, isControl); i >= 0 {
			r.attrError("interfaces", "Invalid interface list",
				fmt.Sprintf("%s: interfaces item %s holds a control character (%q); a device would read the name differently. Remove it.", r.what, strconv.Quote(clip(spec)), spec[i:i+1]))
			return
		}
		var names []string
		var err error
		if generic {
			names, err = expandGenericInterfaces(spec)
		} else {
			names, err = ExpandInterfaces(spec)
		}
		if err != nil {
			r.attrError("interfaces", "Invalid interface list", fmt.Sprintf("%s: %v.", r.what, err))
			return
		}
		for _, n := range names {
			if seen[n] {
				r.attrError("interfaces", "Duplicate interface",
					fmt.Sprintf("%s: %s is listed more than once in interfaces; the ranges overlap.", r.what, n))
				return
			}
			seen[n] = true
			sw.Interfaces = append(sw.Interfaces, n)
		}
	}
}

func (l *loader) decodeTLS(b *hcl.Block, ctx *hcl.EvalContext, what string) *TLS {
	content, diags := b.Body.Content(tlsSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	r := newReader(what+" tls", content.Attributes, ctx, &l.diags)
	t := &TLS{}
	for name, dst := range map[string]*string{"ca_file": &t.CAFile, "cert_file": &t.CertFile, "key_file": &t.KeyFile} {
		if r.str(name, dst) {
			*dst = l.path(*dst)
		}
	}
	r.str("server_name", &t.ServerName)
	r.trustSetting("insecure_skip_verify", &t.InsecureSkipVerify)
	r.trustSetting("plaintext", &t.Plaintext)
	if (t.CertFile == "") != (t.KeyFile == "") {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Incomplete client certificate",
			fmt.Sprintf("%s: set both cert_file and key_file for a client certificate, or neither.", r.what)))
	}
	if t.Plaintext && (t.CAFile != "" || t.CertFile != "" || t.InsecureSkipVerify) {
		r.attrError("plaintext", "Contradictory TLS settings",
			fmt.Sprintf("%s: plaintext turns TLS off, so the certificate settings would be ignored; remove one or the other.", r.what))
	}
	l.record(t, r)
	return t
}

// path resolves a policy-relative path against the policy directory, so
// the Fabric's paths do not depend on the working directory of later steps.
func (l *loader) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(l.absDir, p)
}

// checkAddress accepts "host", "host:port", an IPv6 literal, or
// "[v6]:port".
func checkAddress(a string) error {
	if strings.ContainsAny(a, " \t/") {
		return fmt.Errorf("address %q has spaces or slashes; write \"host\" or \"host:port\"", a)
	}
	if _, err := netip.ParseAddr(a); err == nil {
		return nil
	}
	if !strings.Contains(a, ":") {
		return nil
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("address %q is not \"host\" or \"host:port\": %v", a, err)
	}
	if host == "" {
		return fmt.Errorf("address %q has no host", a)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("address %q: port %q is not a number from 1 to 65535", a, port)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
