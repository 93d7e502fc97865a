package nxsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// maxCheckpoints is the NX-OS limit on user checkpoints: the Cisco NX-OS
// system management configuration guides ("Configuring the Rollback
// Feature") allow up to ten; the eleventh is refused with "Maximum number
// of checkpoints (10) reached".
const maxCheckpoints = 10

// checkpoint is a saved copy of the running config.
type checkpoint struct {
	name, description, user string
	created                 time.Time
	cfg                     *nexus.Config
}

// The texts below follow the CLI forms of the Cisco rollback guides. The
// exact wording of NX-OS's checkpoint errors and rollback status messages
// is not confirmed by a public transcript; they start with "ERROR:" so
// clients that look for that marker (as scrapligo's failed-when-contains
// list does) see a failure.

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

// checkpointSummary renders `show checkpoint summary` in the layout of a
// real Nexus 5000's answer ("User Checkpoint Summary", then "1) NAME:",
// "Created by", "Created at", "Size is", "Description" per checkpoint).
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

// CreateCheckpoint stores the running config under name, as the
// `checkpoint NAME` command typed by user does (tests use it to fill the
// table the way an operator would). It fails like the command: a name in
// use, or ten checkpoints already.
func (s *Switch) CreateCheckpoint(name, user string) error {
	if name == "" {
		return fmt.Errorf("nxsim %s: a checkpoint name is needed", s.hostname)
	}
	_, err := s.createCheckpoint(name, "", user)
	return err
}

// ReplaceRunningConfig replaces the running config with text, as a
// `rollback running-config file` to a saved config would; checkpoints and
// fault settings are kept. Tests use it to put a switch back between runs.
func (s *Switch) ReplaceRunningConfig(text string) error {
	cfg, err := nexus.Parse(text)
	if err != nil {
		return fmt.Errorf("nxsim %s: the replacement config does not parse: %w", s.hostname, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg = cfg
	s.gen++
	return nil
}

// Configure applies configuration lines as one operator session typing
// them in `configure terminal` would, stopping at the first refused line.
func (s *Switch) Configure(lines ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := nexus.ApplyCommands(s.cfg, s.platform, s.modules, lines); err != nil {
		return fmt.Errorf("nxsim %s: %w", s.hostname, err)
	}
	return nil
}
