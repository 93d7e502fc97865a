package nxsim

import (
	"fmt"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// execTree builds the exec-mode grammar of a switch. It is built once per
// switch and never changed afterwards.
func (sw *Switch) execTree() *cmdNode {
	t := &cmdNode{}
	none := func(*session, []string) (string, error) { return "", nil }
	t.add("terminal length <n>", none)
	t.add("terminal width <n>", none)
	t.add("terminal dont-ask", none)
	t.add("terminal session-timeout <n>", none)
	t.add("terminal no dont-ask", none)

	conf := func(s *session, _ []string) (string, error) {
		s.sw.enterConfig(s)
		return "Enter configuration commands, one per line. End with CNTL/Z.", nil
	}
	t.add("configure", conf)
	t.add("configure terminal", conf)
	// Session Manager (`configure session`) does not cover QoS on a 5000
	// (ACL only) and is UNCONFIRMED for QoS on a 7000 (docs/nxos.md); the
	// capability table says so per platform, and the simulator offers no
	// session mode where it is off.
	t.add("configure session <name>", func(s *session, _ []string) (string, error) {
		if !s.sw.platform.Caps.SessionManagerQoS {
			return "", fmt.Errorf("ERROR: configuration sessions do not cover QoS on %s; use configure terminal with checkpoint/rollback", s.sw.kind)
		}
		return "", fmt.Errorf("ERROR: configuration sessions are not simulated")
	})
	t.add("end", none)
	t.add("exit", func(*session, []string) (string, error) { return "", errExit })

	t.add("show version", func(s *session, _ []string) (string, error) { return s.sw.showVersion(), nil })
	t.add("show module", func(s *session, _ []string) (string, error) { return s.sw.showModule(), nil })
	t.add("show ssh key", func(s *session, _ []string) (string, error) { return s.sw.showSSHKey() })
	t.add("show running-config", func(s *session, _ []string) (string, error) {
		return s.sw.showRunning("show running-config", ""), nil
	})
	for _, sec := range []string{"ipqos", "aclmgr"} {
		t.add("show running-config "+sec, func(s *session, _ []string) (string, error) {
			return s.sw.showRunning("show running-config "+sec, sec), nil
		})
	}
	t.add("show running-config interface", func(s *session, _ []string) (string, error) {
		return s.sw.showRunning("show running-config interface", "interface"), nil
	})
	t.add("show running-config interface <list...>", func(s *session, a []string) (string, error) {
		return s.sw.showConfigInterfaces(false, a[0])
	})
	t.add("show interface priority-flow-control", func(s *session, _ []string) (string, error) {
		return s.sw.showPFC(), nil
	})
	t.add("show queuing interface", func(s *session, _ []string) (string, error) {
		return s.sw.showQueuing("")
	})
	t.add("show queuing interface <list...>", func(s *session, a []string) (string, error) {
		return s.sw.showQueuing(a[0])
	})

	t.add("show checkpoint summary", func(s *session, _ []string) (string, error) {
		return s.sw.checkpointSummary(), nil
	})
	t.add("show diff rollback-patch checkpoint <name> running-config", func(s *session, a []string) (string, error) {
		return s.sw.checkpointDiff(a[0])
	})
	cp := func(s *session, a []string) (string, error) {
		name, desc := "", ""
		if len(a) > 0 {
			name = a[0]
		}
		if len(a) > 1 {
			desc = strings.Trim(a[1], `"`)
		}
		return s.sw.createCheckpoint(name, desc, s.user)
	}
	t.add("checkpoint", cp)
	t.add("checkpoint <name>", cp)
	t.add("checkpoint <name> description <text...>", cp)
	t.add("no checkpoint <name>", func(s *session, a []string) (string, error) {
		return "", s.sw.deleteCheckpoint(a[0])
	})
	rb := func(s *session, a []string) (string, error) { return s.sw.rollback(a[0]) }
	t.add("rollback running-config checkpoint <name>", rb)
	for _, typ := range []string{"atomic", "best-effort", "stop-at-first-failure"} {
		t.add("rollback running-config checkpoint <name> "+typ, rb)
		t.add("rollback running-config checkpoint <name> "+typ+" verbose", rb)
	}
	t.add("rollback running-config checkpoint <name> verbose", rb)
	t.add("copy running-config startup-config", func(s *session, _ []string) (string, error) {
		if s.sw.faultsNow().RejectCommand == saveCommand {
			// Faults.RejectCommand naming the save: the switch refuses it
			// and the startup configuration stays as it was.
			s.sw.log.Info("fault: refusing the save", "switch", s.sw.hostname)
			return saveRefused, nil
		}
		return s.sw.saveStartup(), nil
	})
	t.add("show startup-config", func(s *session, _ []string) (string, error) {
		return s.sw.showConfig(true, "show startup-config", ""), nil
	})
	for _, sec := range []string{"ipqos", "aclmgr", "interface"} {
		t.add("show startup-config "+sec, func(s *session, _ []string) (string, error) {
			return s.sw.showConfig(true, "show startup-config "+sec, sec), nil
		})
	}
	t.add("show startup-config interface <list...>", func(s *session, a []string) (string, error) {
		return s.sw.showConfigInterfaces(true, a[0])
	})

	sw.addClientCommands(t)

	if sw.kind == "nexus7000" {
		t.add("show vdc", func(s *session, _ []string) (string, error) { return s.sw.showVDC(), nil })
		t.add("show vdc current-vdc", func(s *session, _ []string) (string, error) {
			id, name := s.sw.currentVDC()
			return fmt.Sprintf("Current vdc is %d - %s", id, name), nil
		})
	}
	return t
}

// execLine runs one exec-mode line. base is the column where the line
// starts on the terminal (after the prompt), for the caret.
func (s *session) execLine(line string, base int) (string, error) {
	h, args, merr := s.sw.exec.match(line)
	if merr != nil {
		return caretError(base+merr.col, merr.kind, ""), nil
	}
	out, err := h(s, args)
	switch {
	case err == errExit:
		return out, err
	case err != nil:
		return err.Error(), nil
	}
	return out, nil
}

// showRunning prints `show running-config [section]` with the header lines
// NX-OS puts first; section "" is the whole configuration.
func (sw *Switch) showRunning(command, section string) string {
	return sw.showConfig(false, command, section)
}

// showConfig prints the running (saved false) or startup configuration,
// whole or one section ("ipqos", "aclmgr", "interface"), under its header.
func (sw *Switch) showConfig(saved bool, command, section string) string {
	sw.mu.Lock()
	c := sw.cfg
	if saved {
		c = sw.startup
	}
	body := c.String()
	if section != "" {
		body = c.Section(section)
	}
	sw.mu.Unlock()
	return sw.configHeader(saved, command) + body
}

// configHeader is what NX-OS prints before a configuration: !Command,
// !Time, for the startup configuration "!Startup config saved at:", then
// the version line.
func (sw *Switch) configHeader(saved bool, command string) string {
	sw.mu.Lock() // an upgrade changes the version (upgrade.go)
	os, savedAt := sw.version.OS, sw.savedAt
	sw.mu.Unlock()
	h := "\n!Command: " + command + "\n!Time: " + sw.now().UTC().Format(time.ANSIC) + "\n"
	if saved {
		h += "!Startup config saved at: " + savedAt.UTC().Format(time.ANSIC) + "\n"
	}
	return h + "\nversion " + os + "\n\n"
}

// showConfigInterfaces prints `show running-config interface LIST` (or
// `show startup-config interface LIST` when saved).
func (sw *Switch) showConfigInterfaces(saved bool, list string) (string, error) {
	names, err := sw.expandInterfaces(list)
	if err != nil {
		return "", err
	}
	sw.mu.Lock()
	c, which := sw.cfg, "running"
	if saved {
		c, which = sw.startup, "startup"
	}
	body := c.InterfaceConfig(names...)
	sw.mu.Unlock()
	return sw.configHeader(saved, "show "+which+"-config interface "+list) + body, nil
}

// currentVDC returns the VDC id and name sessions land in; the default VDC
// is id 1 and carries the switch name.
func (sw *Switch) currentVDC() (int, string) {
	if sw.vdc == "" {
		return 1, sw.hostname
	}
	return 2, sw.vdc
}

// showVDC prints `show vdc` in the shape of the real Nexus 7000 output
// (ntc-templates tests/cisco_nxos/show_vdc/cisco_nxos_show_vdc.raw, in the
// corpus as ntc-vdc.txt): a blank line, the "Switchwide mode is …" line of
// that output, a blank line, then the table. The VDC sessions land in holds
// the switch's ports, so it is an Ethernet VDC whose lc column lists the
// series of its line cards ("f2 m1"): an Admin VDC, which the capture shows
// with lc None, holds no ports and is not simulated. From the default VDC
// (1) every VDC is listed, from another VDC only that one (the latter is
// UNCONFIRMED). VDC N gets the MAC the capture shows for VDC N
// (e4:c7:22:0c:67:cN); the MACs are the capture's, not the switch's own.
func (sw *Switch) showVDC() string {
	var b strings.Builder
	b.WriteString("\nSwitchwide mode is m1 f1 m1xl f2 m2xl f2e f3\n\n")
	fmt.Fprintf(&b, "%-7s %-33s %-19s %-19s %-11s %s\n", "vdc_id", "vdc_name", "state", "mac", "type", "lc")
	fmt.Fprintf(&b, "%-7s %-33s %-19s %-19s %-11s %s\n", "------", "--------", "-----", "----------", "---------", "------")
	id, name := sw.currentVDC()
	fmt.Fprintf(&b, "%-7d %-33s %-19s %-19s %-11s %s\n", id, name, "active", fmt.Sprintf("e4:c7:22:0c:67:c%d", id), "Ethernet", sw.vdcLineCards())
	return strings.TrimRight(b.String(), "\n")
}

// vdcLineCards is the lc column of the VDC that holds the switch's line
// cards: their series in lower case, in slot order, each once ("f2 m1");
// "None" when it has none.
func (sw *Switch) vdcLineCards() string {
	var types []string
	seen := map[string]bool{}
	for _, m := range sw.modules {
		t := lineCardType(m)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		types = append(types, t)
	}
	if len(types) == 0 {
		return "None"
	}
	return strings.Join(types, " ")
}

// lineCardType is the module type `show vdc` names a card by ("f2", "m1",
// "f2e", "m1xl"): the series letter and generation of the model
// (N7K-F248XP-25 → f2, N7K-M148GT-11 → m1), with the capture's suffixes for
// the -25E (f2e) and -L (m1xl, m2xl) variants; "" for a supervisor or an
// unknown model.
func lineCardType(m nexus.Module) string {
	model := strings.TrimPrefix(m.Model, "N7K-")
	if model == m.Model || len(model) < 2 || (model[0] != 'F' && model[0] != 'M') || model[1] < '1' || model[1] > '9' {
		return ""
	}
	t := strings.ToLower(model[:2])
	switch {
	case t == "f2" && strings.HasSuffix(model, "-25E"):
		t = "f2e"
	case model[0] == 'M' && strings.HasSuffix(model, "L"):
		t += "xl"
	}
	return t
}

// saveCommand saves the running configuration; Faults.RejectCommand set
// to it makes the switch refuse it with saveRefused.
const saveCommand = "copy running-config startup-config"

// saveRefused is the simulator's answer to a refused save. What NX-OS
// prints when a save fails is UNCONFIRMED by a public transcript; Cisco's
// guides say only one user at a time can checkpoint, roll back or copy the
// running configuration to the startup configuration, so the text names
// that. roce does not match it: a save is good only when the answer says
// "Copy complete" (docs/nxos.md, "Saving the configuration").
const saveRefused = "Configuration update aborted: another checkpoint, rollback or copy of the running configuration is in progress"
