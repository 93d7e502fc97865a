package perftest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// The test binary doubles as the substitute probe command: re-executed with
// PERFTEST_FAKE_STDOUT etc. set, it prints a recorded perftest output and
// exits with the recorded code instead of running the tests.
func TestMain(m *testing.M) {
	if os.Getenv("PERFTEST_FAKE") == "1" {
		os.Exit(fakePerftest())
	}
	os.Exit(m.Run())
}

func fakePerftest() int {
	if p := os.Getenv("PERFTEST_FAKE_STDOUT"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		os.Stdout.Write(b)
	}
	if p := os.Getenv("PERFTEST_FAKE_STDERR"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		os.Stderr.Write(b)
	}
	if d, err := time.ParseDuration(os.Getenv("PERFTEST_FAKE_SLEEP")); err == nil {
		time.Sleep(d)
	}
	rc, _ := strconv.Atoi(os.Getenv("PERFTEST_FAKE_RC"))
	return rc
}

// fakeCommand returns a probe command that replays the recorded files.
func fakeCommand(t *testing.T, stdout, stderr string, rc int, sleep time.Duration) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"env", "PERFTEST_FAKE=1", "PERFTEST_FAKE_RC=" + strconv.Itoa(rc)}
	if stdout != "" {
		env = append(env, "PERFTEST_FAKE_STDOUT=testdata/"+stdout)
	}
	if stderr != "" {
		env = append(env, "PERFTEST_FAKE_STDERR=testdata/"+stderr)
	}
	if sleep > 0 {
		env = append(env, "PERFTEST_FAKE_SLEEP="+sleep.String())
	}
	return append(env, exe)
}
