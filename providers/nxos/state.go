package nxos

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// state is what was read from a switch (live or captured).
type state struct {
	version nexus.Version
	kind    string
	modules []nexus.Module
	// text is the normalised configuration read: the ACL and QoS sections
	// plus the managed interfaces. The fingerprint is its digest, and cfg
	// its parse.
	text        string
	fingerprint string
	cfg         *nexus.Config
	// vdcID/vdcName: the VDC the session is in (7000; 0 when unknown).
	vdcID   int
	vdcName string
	// jumbo is a 7000's `system jumbomtu N` line ("" when the switch runs
	// the default 9216), read with the facts (jumboCommand): the MTU roce
	// sets on managed Layer 2 ports (docs/nxos.md#port-mtu), which the
	// sections in text do not hold.
	jumbo string
	// defaultL2: the 7000 has `system default switchport` (read with the
	// jumbomtu): its ports without a switchport line are Layer 2.
	defaultL2 bool
	// startup is the normalised text of the same sections in the startup
	// configuration (`show startup-config`), read with the facts;
	// startupRead is false for a re-read or a capture, which have none.
	startup     string
	startupRead bool
}

// takeStartup keeps the answers to the startup-config reads; a refused
// one leaves the startup configuration unknown.
func (st *state) takeStartup(parts []string) {
	var b strings.Builder
	for _, p := range parts {
		if cliRefused(p) {
			return
		}
		b.WriteString(nexus.NormaliseRunning(p))
	}
	st.startup, st.startupRead = b.String(), true
}

// sections are the `show running-config` sections read, in order. ACLs
// are read because a RoCE v2 class matches through an ip access-list.
var sections = []string{"aclmgr", "ipqos"}

// finish parses the normalised text and computes the fingerprint.
func (st *state) finish(text, source string) error {
	st.text = text
	sum := sha256.Sum256([]byte(text))
	st.fingerprint = "sha256:" + hex.EncodeToString(sum[:])
	cfg, err := nexus.Parse(text)
	if err != nil {
		return fmt.Errorf("parse the running config read from %s: %w", source, err)
	}
	st.cfg = cfg
	return nil
}

// jumboCommand reads a 7000's global `system …` lines, which the
// sections roce reads do not hold: `system jumbomtu N` (nothing at the
// default 9216) and `system default switchport` (ports Layer 2 by
// default; without it a 7000's are Layer 3), docs/nxos.md#port-mtu.
const jumboCommand = "show running-config | include ^system"

// takeJumbo keeps the `system jumbomtu` line of jumboCommand's answer.
func (st *state) takeJumbo(out string) error {
	if cliRefused(out) {
		return fmt.Errorf("read %s: the switch refused it: %s", jumboCommand, strings.TrimSpace(out))
	}
	return st.keepJumbo(out, jumboCommand)
}

// keepJumbo keeps the last top-level `system jumbomtu` line of a
// configuration text (none: the default), refusing one roce cannot read,
// and whether it has `system default switchport`.
func (st *state) keepJumbo(text, source string) error {
	st.jumbo, st.defaultL2 = nexus.SystemLines(text)
	if _, err := nexus.ParseJumboMTU(st.jumbo); err != nil {
		return fmt.Errorf("read %s: %w", source, err)
	}
	return nil
}

// facts are the TargetPlan facts of a read.
func (st *state) facts() map[string]string {
	f := map[string]string{
		"os":       st.version.OS,
		"platform": st.version.Platform,
		"image":    st.version.Image,
	}
	if st.version.Kickstart != "" {
		f["kickstart"] = st.version.Kickstart
	}
	var mods []string
	for _, m := range st.modules {
		if m.Model == "" {
			continue
		}
		s := fmt.Sprintf("%d:%s", m.Slot, m.Model)
		if m.Series != "" {
			s += "(" + m.Series + ")"
		}
		mods = append(mods, s)
	}
	if len(mods) > 0 {
		f["modules"] = strings.Join(mods, " ")
	}
	if st.vdcID > 0 {
		f["vdc"] = fmt.Sprintf("%d %s", st.vdcID, st.vdcName)
	}
	return f
}

// currentVDCRe reads `show vdc current-vdc`: "Current vdc is 1 - N7K1".
// The layout is UNCONFIRMED by a public transcript (the guides name only the VDC
// facts); the default VDC is id 1.
var currentVDCRe = regexp.MustCompile(`(?m)^\s*Current vdc is (\d+)\s*-\s*(\S+)`)

func parseCurrentVDC(out string) (int, string, error) {
	m := currentVDCRe.FindStringSubmatch(out)
	if m == nil {
		return 0, "", fmt.Errorf("`show vdc current-vdc` answered %q; expected \"Current vdc is N - NAME\"", firstLines(out))
	}
	id, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, "", fmt.Errorf("`show vdc current-vdc`: VDC id %q: %w", m[1], err)
	}
	return id, m[2], nil
}

// interfaceList writes managed interfaces for `show running-config
// interface`, folding consecutive ports into ranges (Ethernet1/1-4).
func interfaceList(names []string) string {
	var parts []string
	for i := 0; i < len(names); {
		base, n, ok := splitPort(names[i])
		j := i + 1
		if ok {
			for j < len(names) {
				b2, n2, ok2 := splitPort(names[j])
				if !ok2 || b2 != base || n2 != n+(j-i) {
					break
				}
				j++
			}
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s%d-%d", base, n, n+(j-i-1)))
		} else {
			parts = append(parts, names[i])
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// splitPort splits "Ethernet1/7" into "Ethernet1/" and 7.
func splitPort(name string) (string, int, bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil {
		return "", 0, false
	}
	return name[:i+1], n, true
}
