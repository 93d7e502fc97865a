package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// AgentEnv names the environment variable pointing at the roce-agent binary.
const AgentEnv = "ROCE_AGENT"

// locateAgent finds the roce-agent binary: $ROCE_AGENT, next to the running
// executable, or in PATH.
func locateAgent(getenv func(string) (string, bool)) (string, error) {
	if getenv != nil {
		if p, ok := getenv(AgentEnv); ok && p != "" {
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				return "", fmt.Errorf("$%s=%s: not an executable file", AgentEnv, p)
			}
			return p, nil
		}
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "roce-agent")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("roce-agent"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("roce-agent not found: build it (go build -o bin/roce-agent ./cmd/roce-agent) and put it next to the roce binaries, in PATH, or set $%s", AgentEnv)
}

// localRunner runs the agent as a subprocess, inside `ip netns exec` when
// the host is a network namespace.
type localRunner struct {
	argv []string
}

func newLocalRunner(agent, netns, root string) *localRunner {
	argv := []string{agent, "--root", root}
	if netns != "" {
		argv = append([]string{"ip", "netns", "exec", netns}, argv...)
	}
	return &localRunner{argv: argv}
}

func (l *localRunner) run(ctx context.Context, stdin []byte) ([]byte, []byte, error) {
	cmd := exec.CommandContext(ctx, l.argv[0], l.argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	err := cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

func (l *localRunner) describe() string { return strings.Join(l.argv, " ") }
func (l *localRunner) close() error     { return nil }
