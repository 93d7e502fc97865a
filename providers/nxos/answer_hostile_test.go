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
