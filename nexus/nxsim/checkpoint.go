package nxsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// maxCheckpoints is the NX-OS limit on user checkpoints (reference §3.2).
const maxCheckpoints = 10

// checkpoint is a saved copy of the running config.
type checkpoint struct {
	name, description, user string
	created                 time.Time
	cfg                     *nexus.Config
}

// The texts below follow the CLI forms in reference §3.2. The exact wording
// of NX-OS's checkpoint error and rollback status messages is UNCONFIRMED
// there; they start with "ERROR:" so clients that look for that marker (as
// scrapligo's failed-when-contains list does) see a failure.

// createCheckpoint stores the running config under name ("" = generated).
func (s *Switch) createCheckpoint(name, description, user string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "" {
		for i := 1; ; i++ {
			name = "user-checkpoint-" + strconv.Itoa(i)
			if s.findCheckpoint(name) < 0 {
				break
			}
		}
	}
	if s.findCheckpoint(name) >= 0 {
		return "", fmt.Errorf("ERROR: Checkpoint name %q is already in use", name)
	}
	if len(s.checkpoints) >= maxCheckpoints {
		return "", fmt.Errorf("ERROR: Maximum number of checkpoints (%d) reached; delete one with 'no checkpoint NAME'", maxCheckpoints)
	}
	s.checkpoints = append(s.checkpoints, &checkpoint{
		name: name, description: description, user: user,
		created: s.now(), cfg: s.cfg.Clone(),
	})
	return ".......Done", nil
}

// deleteCheckpoint removes a checkpoint by name.
func (s *Switch) deleteCheckpoint(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.findCheckpoint(name)
	if i < 0 {
		return fmt.Errorf("ERROR: Checkpoint %q does not exist", name)
	}
	s.checkpoints = append(s.checkpoints[:i], s.checkpoints[i+1:]...)
	return nil
}

// rollback replaces the running config with a checkpoint's copy. Every
// rollback type restores the checkpoint exactly here: the simulator applies
// the whole patch or nothing, so atomic, best-effort and
// stop-at-first-failure cannot differ.
func (s *Switch) rollback(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.findCheckpoint(name)
	if i < 0 {
		return "", fmt.Errorf("ERROR: Checkpoint %q does not exist", name)
	}
	s.cfg = s.checkpoints[i].cfg.Clone()
	s.gen++
	return strings.Join([]string{
		"Note: Applying config parallelly may fail Rollback verification",
		"Collecting Running-Config",
		"#Generating Rollback Patch",
		"Executing Rollback Patch",
		"Generating Running-config for verification",
		"#Generating Patch for verification",
		"Rollback completed successfully.",
	}, "\n"), nil
}

// checkpointDiff shows the lines a rollback to name would change, in the
// spirit of `show diff rollback-patch checkpoint NAME running-config`:
// "-" lines are removed, "+" lines added, going from the checkpoint to the
// running config.
func (s *Switch) checkpointDiff(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.findCheckpoint(name)
	if i < 0 {
		return "", fmt.Errorf("ERROR: Checkpoint %q does not exist", name)
	}
	from := strings.Split(s.checkpoints[i].cfg.String(), "\n")
	to := strings.Split(s.cfg.String(), "\n")
	var b strings.Builder
	inFrom := map[string]int{}
	for _, l := range from {
		inFrom[l]++
	}
	inTo := map[string]int{}
	for _, l := range to {
		inTo[l]++
	}
	for _, l := range from {
		if inTo[l] == 0 && strings.TrimSpace(l) != "" {
			b.WriteString("-" + l + "\n")
		}
	}
	for _, l := range to {
		if inFrom[l] == 0 && strings.TrimSpace(l) != "" {
			b.WriteString("+" + l + "\n")
		}
	}
	if b.Len() == 0 {
		return "No Changes", nil
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// checkpointSummary renders `show checkpoint summary` (reference §3.2).
func (s *Switch) checkpointSummary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString("User Checkpoint Summary\n")
	for i, c := range s.checkpoints {
		if i > 0 {
			b.WriteString("\n")
		}
		desc := "None"
		if c.description != "" {
			desc = strconv.Quote(c.description)
		}
		fmt.Fprintf(&b, "%d) %s:\nCreated by %s\nCreated at %s\nSize is %s bytes\nDescription: %s\n",
			i+1, c.name, c.user, c.created.UTC().Format("Mon, 15:04:05 02 Jan 2006"),
			thousands(len(c.cfg.String())), desc)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s *Switch) findCheckpoint(name string) int {
	for i, c := range s.checkpoints {
		if c.name == name {
			return i
		}
	}
	return -1
}

// thousands writes n with comma separators ("5,824").
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
