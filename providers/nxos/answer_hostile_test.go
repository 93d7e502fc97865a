package nxos

import (
	"fmt"
	"strings"
	"testing"
)

// Text anyone with configuration access can put in a switch's running
// configuration (an ACL remark, shown by `show running-config aclmgr`)
// is part of the answers roce reads. Text that looks like a CLI error
// ("ERROR: ...", "% Invalid command") inside such an answer is the
// configuration, not a refusal: roce must read and apply the switch, not
// report that the switch refused its show command.
func TestHostileRemarkLooksLikeRefusal(t *testing.T) {
	for _, remark := range []string{
		"ERROR: do not remove, ticket 4711",
		"% Invalid command at '^' marker.",
		"% Invalid input detected",
	} {
		for _, sequential := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sequential=%v", remark, sequential), func(t *testing.T) {
				r := newRig(t, rigOpts{kind: "nexus5000"})
				r.target.sequential = sequential
				applyByHand(t, r, []string{"ip access-list HOSTILE", "10 remark " + remark, "20 permit ip any any"})
				if !strings.Contains(r.srv.Switch().RunningConfig(), remark) {
					t.Fatalf("the simulator did not keep the remark; running-config:\n%s", r.srv.Switch().RunningConfig())
				}
				tp := r.plan(t)
				if len(tp.Changes) == 0 {
					t.Fatal("nothing to apply")
				}
				res, err := r.apply(t, tp)
				if err != nil {
					t.Fatalf("apply failed on a switch whose ACL remark reads %q: %v\n%s", remark, err, transcriptText(res.Transcript))
				}
			})
		}
	}
}

// An answer holding a line that looks like this switch's prompt is cut
// there only if the line carries the echo of the very next command;
// otherwise the answer cannot be attributed and is refused whole, so a
// show answer cannot shift a refusal onto another line.
func TestHostileAnswerWithPrompt(t *testing.T) {
	cmds := []string{"show running-config aclmgr", "show running-config ipqos"}
	for _, tc := range []struct{ name, text string }{
		{"fake prompt with the next echo, then the real one",
			cmds[0] + "\nip access-list A\nsw1# " + cmds[1] + "\n% Invalid command\nsw1# " + cmds[1] + "\npolicy-map x\nsw1# "},
		{"fake prompt with another command",
			cmds[0] + "\nsw1# configure terminal\nsw1# " + cmds[1] + "\nx\nsw1# "},
		{"fake configuration prompt",
			cmds[0] + "\nsw1(config)# no system qos\nsw1# " + cmds[1] + "\nx\nsw1# "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, done, err := splitBatch(tc.text, cmds)
			if err == nil {
				t.Errorf("answer taken (done=%v) as %q", done, parts)
			}
		})
	}
}
