package plan

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lockHelperEnv, when set, turns the test binary into a process that takes
// the lock at that path, says "locked", and waits to be killed.
const lockHelperEnv = "ROCE_TEST_LOCK_HELPER_PATH"

// TestLockHelperProcess is not a test: it is the child process of
// TestLockReleasedWhenHolderKilled.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv(lockHelperEnv)
	if path == "" {
		t.Skip("helper process for TestLockReleasedWhenHolderKilled")
	}
	l, err := AcquireLock(context.Background(), path, 0, "lock helper")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("locked")
	// Stop by ourselves if the parent never kills us.
	time.Sleep(60 * time.Second)
	l.Release()
	os.Exit(0)
}

func TestAcquireLockRefusedWithHolderInfo(t *testing.T) {
	ctx := context.Background()
	path := DefaultLockPath(t.TempDir())
	l1, err := AcquireLock(ctx, path, 0, "roce-apply one.roce")
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Release()
	if l1.Path() != path {
		t.Errorf("Path() = %q", l1.Path())
	}
	_, err = AcquireLock(ctx, path, 0, "roce-apply two.roce")
	var held *LockHeldError
	if !errors.As(err, &held) {
		t.Fatalf("second AcquireLock: %v, want a *LockHeldError", err)
	}
	host, _ := os.Hostname()
	if held.Holder.PID != os.Getpid() || held.Holder.Host != host || held.Holder.Command != "roce-apply one.roce" || held.Holder.Since.IsZero() {
		t.Errorf("holder = %+v", held.Holder)
	}
	msg := err.Error()
	for _, want := range []string{"could not acquire the apply lock " + path, "held by roce-apply one.roce since ",
		fmt.Sprintf("(pid %d on host %s", os.Getpid(), host), "use -lock-timeout to wait"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestAcquireLockWaitsForRelease(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "apply.lock")
	l1, err := AcquireLock(ctx, path, 0, "first")
	if err != nil {
		t.Fatal(err)
	}
	notices := make(chan string, 4)
	got := make(chan error, 1)
	go func() {
		// The timeout only bounds a broken test; the lock is released as
		// soon as the waiter has said it waits.
		l2, err := AcquireLockNotify(ctx, path, 30*time.Second, "second", func(m string) { notices <- m })
		if err == nil {
			err = l2.Release()
		}
		got <- err
	}()
	msg := <-notices
	if !strings.Contains(msg, "another roce-apply holds the lock "+path+": first since ") || !strings.Contains(msg, "; waiting up to 30s") {
		t.Errorf("waiting notice = %q", msg)
	}
	if err := l1.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter did not get the lock after release: %v", err)
	}
	if len(notices) != 0 {
		t.Errorf("notified more than once: %q", <-notices)
	}
}

func TestAcquireLockTimeoutAndCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "apply.lock")
	l1, err := AcquireLock(context.Background(), path, 0, "first")
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Release()

	_, err = AcquireLock(context.Background(), path, 150*time.Millisecond, "second")
	var held *LockHeldError
	if !errors.As(err, &held) || !strings.Contains(err.Error(), "within 150ms: held by first since") {
		t.Errorf("after timeout: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err = AcquireLockNotify(ctx, path, time.Minute, "third", func(string) { cancel() })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for apply lock "+path) {
		t.Errorf("after cancel: %v", err)
	}
}

func TestLockReleasedWhenHolderKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "apply.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	locked := false
	for !locked && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "error:") {
			t.Fatalf("helper: %s", sc.Text())
		}
		locked = sc.Text() == "locked"
	}
	if !locked {
		t.Fatal("helper exited without taking the lock")
	}

	_, err = AcquireLock(context.Background(), path, 0, "parent")
	var held *LockHeldError
	if !errors.As(err, &held) || held.Holder.PID != cmd.Process.Pid || held.Holder.Command != "lock helper" {
		t.Fatalf("while the helper holds it: %v (holder %+v, helper pid %d)", err, held, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // "signal: killed" is the expected outcome

	l, err := AcquireLock(context.Background(), path, 0, "parent")
	if err != nil {
		t.Fatalf("lock of a killed process was not released by the kernel: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestLockReleaseIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "apply.lock")
	l, err := AcquireLock(context.Background(), path, 0, "x")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := l.Release(); err != nil {
			t.Fatalf("Release #%d: %v", i+1, err)
		}
	}
	if data, err := os.ReadFile(path); err != nil || len(data) != 0 {
		t.Errorf("holder info not cleared on release: %q, %v", data, err)
	}
	var nilLock *Lock
	if err := nilLock.Release(); err != nil {
		t.Errorf("nil Release: %v", err)
	}
	// Released means free: another acquire works at once.
	l2, err := AcquireLock(context.Background(), path, 0, "y")
	if err != nil {
		t.Fatal(err)
	}
	l2.Release()
}

func TestAcquireLockBadPath(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, ".roce", "apply.lock")
	if _, err := AcquireLock(context.Background(), path, 0, "x"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
}

func TestLockHolderString(t *testing.T) {
	since := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	tests := []struct {
		h    LockHolder
		want string
	}{
		{LockHolder{}, "an unknown process"},
		{LockHolder{PID: 7, Host: "ci-1"}, "a roce process (pid 7 on host ci-1)"},
		{LockHolder{PID: 7, Host: "ci-1", User: "deploy", Command: "roce-apply p.roce", Since: since},
			"roce-apply p.roce since 2026-11-22 01:02:03 UTC (pid 7 on host ci-1, user deploy)"},
	}
	for _, tc := range tests {
		if got := tc.h.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	if h := parseLockHolder([]byte("garbage")); h != (LockHolder{}) {
		t.Errorf("garbage parsed as %+v", h)
	}
}

// FuzzParseLockHolder: whatever another process left in the lock file,
// reading and describing the holder never panics.
func FuzzParseLockHolder(f *testing.F) {
	f.Add([]byte(`{"pid":42,"host":"h","user":"u","command":"roce-apply","since":"2026-11-22T01:02:03Z"}`))
	f.Add([]byte(`{"pid":-1}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := parseLockHolder(data)
		if h.PID < 0 {
			t.Errorf("negative pid accepted: %+v", h)
		}
		if h.String() == "" {
			t.Error("empty holder description")
		}
	})
}

// The lock never writes through a symlink, a hard link or a file that is
// not a roce lock note: the file it would have truncated stays intact.
func TestLockNeverTruncatesAFileItDidNotCreate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, lock, victim string)
		want  string
	}{
		{"symlink", func(t *testing.T, lock, victim string) { must(t, os.Symlink(victim, lock)) }, "symbolic link"},
		{"hard link", func(t *testing.T, lock, victim string) { must(t, os.Link(victim, lock)) }, "hard links"},
		{"foreign content", func(t *testing.T, lock, victim string) {
			must(t, os.WriteFile(lock, []byte("precious\n"), 0o644))
		}, "not a roce lock note"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			must(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
			lock := filepath.Join(dir, ".roce", "apply.lock")
			must(t, os.MkdirAll(filepath.Dir(lock), 0o755))
			tc.setup(t, lock, victim)
			l, err := AcquireLock(context.Background(), lock, 0, "test")
			if err == nil {
				l.Release()
				t.Fatal("the lock was taken")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q lacks %q", err, tc.want)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
				t.Fatalf("the victim file was changed: %q", b)
			}
		})
	}
	// A lock file roce wrote earlier (a released, empty one, or a note
	// left by a killed holder) is reused.
	dir := t.TempDir()
	lock := filepath.Join(dir, "apply.lock")
	must(t, os.WriteFile(lock, []byte(`{"pid":42,"host":"ci-1","since":"2026-11-22T02:00:00Z"}`+"\n"), 0o644))
	l, err := AcquireLock(context.Background(), lock, 0, "test")
	must(t, err)
	must(t, l.Release())
}
