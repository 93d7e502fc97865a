package nics

import (
	"strings"
	"testing"
)

// iproute2Args splits one batch line as iproute2's batch mode does
// (lib/utils.c, getcmdline and makeargs): everything from the first '#'
// is a comment, then words are split on white space, a word opening with
// a quote running to the same quote.
func iproute2Args(line string) []string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	var out []string
	for {
		line = strings.TrimLeft(line, " \t\r\n")
		if line == "" {
			return out
		}
		if q := line[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(line[1:], q)
			if end < 0 {
				return append(out, "<unterminated quote>")
			}
			out = append(out, line[1:1+end])
			line = line[2+end:]
			continue
		}
		end := strings.IndexAny(line, " \t\r\n")
		if end < 0 {
			return append(out, line)
		}
		out = append(out, line[:end])
		line = line[end:]
	}
}

// A netdev name from a policy becomes words of `dcb -b` batch lines in
// /etc/roce/dcb/<netdev>.dcb, which udev runs as root. Every name roce
// accepts (platforms.CheckNetdevName, the rule validate applies) must come
// out of iproute2's line splitting as the one word roce wrote, so the
// commands act on that netdev and nothing else; a name that cannot is
// refused, at validate and by the agent's content check.
func TestHostileNetdevInDCBBatch(t *testing.T) {
	d := &DCBState{PFCEnabled: 1 << 3, DSCPApps: []DSCPApp{{DSCP: 26, Priority: 3}}}
	for _, nd := range []string{
		"eth0#x",   // '#': the rest of the line is a comment in a batch file
		"e#",       // 'dcbx set dev e' and nothing else
		"$name",    // udev substitutions: not re-expanded in a value
		"%k",       //
		"$env{X}",  //
		"a;reboot", // no shell between udev and dcb
		"a|b", "a`id`", "$$", "%%", "eth0", "enp1s0f0np0",
	} {
		err := CheckNetdevName(nd)
		if err != nil {
			// Refused: the agent must refuse its file too.
			f := FileState{Path: DCBPersistPath(nd), Format: FormatLines, Exists: true, Lines: dcbBatchLines(nd, d)}
			if CheckFileContent(f) == nil {
				t.Errorf("netdev %q is refused (%v) but the agent accepts %s", nd, err, f.Path)
			}
			continue
		}
		for _, l := range dcbBatchLines(nd, d) {
			args := iproute2Args(l)
			want := strings.Fields(l)
			if strings.Join(args, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("netdev %q: batch line %q runs as dcb %q, not %q", nd, l, args, want)
			}
		}
		f := FileState{Path: DCBPersistPath(nd), Format: FormatLines, Exists: true, Lines: dcbBatchLines(nd, d)}
		if err := CheckFileContent(f); err != nil {
			t.Errorf("netdev %q is accepted, but the agent refuses roce's own file for it: %v", nd, err)
		}
	}
}

// The udev rule is one fixed text: no policy value is ever written into
// it (it names the netdev only through udev's own $name), so only the
// exact rule passes the agent's check, and a rule that differs from it by
// a RUN key, an extra assignment or white space is refused.
func TestHostileUdevRuleContent(t *testing.T) {
	rule := udevRuleLines()
	ok := FileState{Path: FileDCBUdevRule, Format: FormatLines, Exists: true, Lines: rule}
	if err := CheckFileContent(ok); err != nil {
		t.Fatalf("roce's own rule is refused: %v", err)
	}
	for _, bad := range []string{
		rule[1] + `, RUN+="/bin/sh -c id"`,
		strings.Replace(rule[1], "/usr/sbin/dcb", "/tmp/dcb", 1),
		strings.Replace(rule[1], "$name", "$env{X}", 2),
		rule[1] + " ",
		"\t" + rule[1],
		`ACTION=="add", RUN+="/bin/sh -c id"`,
		`IMPORT{program}="/bin/sh -c id"`,
	} {
		f := FileState{Path: FileDCBUdevRule, Format: FormatLines, Exists: true, Lines: []string{rule[0], bad}}
		if CheckFileContent(f) == nil {
			t.Errorf("the agent accepts udev rule line %q", bad)
		}
	}
}

// FuzzDCBBatchNetdev: for any netdev name, either it is refused (and so is
// its batch file) or every batch line roce writes for it splits, as
// iproute2 splits it, into exactly the words roce wrote, and the agent
// accepts roce's own file.
func FuzzDCBBatchNetdev(f *testing.F) {
	for _, s := range []string{"eth0", "eth0#x", "$name", "%k", "a'b", "a\\b", "a\"b", "..", "x/y"} {
		f.Add(s)
	}
	d := &DCBState{PFCEnabled: 1<<3 | 1<<4, DSCPApps: []DSCPApp{{DSCP: 26, Priority: 3}, {DSCP: 0, Priority: 0}}}
	f.Fuzz(func(t *testing.T, nd string) {
		file := FileState{Path: DCBPersistPath(nd), Format: FormatLines, Exists: true, Lines: dcbBatchLines(nd, d)}
		if CheckNetdevName(nd) != nil {
			if CheckFileContent(file) == nil {
				t.Fatalf("netdev %q is refused but the agent accepts %s", nd, file.Path)
			}
			return
		}
		for _, l := range file.Lines {
			if got, want := iproute2Args(l), strings.Fields(l); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("netdev %q: %q runs as %q", nd, l, got)
			}
		}
		if err := CheckFileContent(file); err != nil {
			t.Fatalf("netdev %q: the agent refuses roce's own file: %v", nd, err)
		}
	})
}
