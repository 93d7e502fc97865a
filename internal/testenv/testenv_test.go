package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The child half: ask for a tool no machine has.
func TestChildAsksForMissingTool(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "1" {
		t.Skip("helper for TestMissingToolSkipsLocallyAndFailsInCI")
	}
	Tool(t, "roce-no-such-tool", "nowhere")
}

func TestMissingToolSkipsLocallyAndFailsInCI(t *testing.T) {
	run := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildAsksForMissingTool$", "-test.v")
		env := []string{"TESTENV_CHILD=1"}
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "CI=") {
				env = append(env, e)
			}
		}
		if ci != "" {
			env = append(env, "CI="+ci)
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil || !strings.Contains(out, "--- SKIP") || !strings.Contains(out, "roce-no-such-tool not installed (nowhere)") {
		t.Fatalf("outside CI a missing tool must skip with what to install: %v\n%s", err, out)
	}
	out, err = run("true")
	if err == nil || !strings.Contains(out, "--- FAIL") || !strings.Contains(out, "CI must provide it") {
		t.Fatalf("in CI a missing tool must fail: %v\n%s", err, out)
	}
}
