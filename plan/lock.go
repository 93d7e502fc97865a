package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// lockPollInterval is how often a waiting AcquireLock retries.
const lockPollInterval = 100 * time.Millisecond

// maxLockInfoSize bounds how much of a lock file is read for holder info.
const maxLockInfoSize = 64 << 10

// DefaultLockPath is where the apply lock of the fabric whose policies are
// in dir lives: <dir>/.roce/apply.lock.
func DefaultLockPath(dir string) string {
	return filepath.Join(dir, ".roce", "apply.lock")
}

// LockHolder is who holds the apply lock, recorded inside the lock file so
// a waiting pipeline can say whom it waits for.
type LockHolder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	User    string    `json:"user,omitempty"`
	Command string    `json:"command,omitempty"`
	Since   time.Time `json:"since"`
}

// String describes the holder for messages: "roce-apply plan.roce since
// 2026-11-22 02:00:00 UTC (pid 42 on host ci-7, user deploy)".
func (h LockHolder) String() string {
	if h.PID == 0 {
		// The holder has the lock but has not written its details yet, or
		// the file was written by something else.
		return "an unknown process"
	}
	s := h.Command
	if s == "" {
		s = "a roce process"
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format("2006-01-02 15:04:05 MST")
	}
	s += fmt.Sprintf(" (pid %d on host %s", h.PID, h.Host)
	if h.User != "" {
		s += ", user " + h.User
	}
	return s + ")"
}

// parseLockHolder reads holder info from a lock file's contents; anything
// unreadable gives the zero holder ("an unknown process").
func parseLockHolder(data []byte) LockHolder {
	var h LockHolder
	if err := json.Unmarshal(data, &h); err != nil || h.PID < 0 {
		return LockHolder{}
	}
	return h
}

// LockHeldError is returned when the lock stayed held by someone else for
// the whole timeout.
type LockHeldError struct {
	Path   string
	Holder LockHolder
	Waited time.Duration
}

func (e *LockHeldError) Error() string {
	if e.Waited <= 0 {
		return fmt.Sprintf("could not acquire the apply lock %s: held by %s; another apply is running on this fabric (use -lock-timeout to wait for it)", e.Path, e.Holder)
	}
	return fmt.Sprintf("could not acquire the apply lock %s within %s: held by %s", e.Path, e.Waited, e.Holder)
}

// Lock is a held fabric-wide apply lock. It is an flock(2) on a file, so
// the kernel releases it when the process dies, however it dies. Keep the
// *Lock reachable until Release (defer l.Release() does): a collected Lock
// closes its file, and closing the file releases the lock.
type Lock struct {
	path string
	mu   sync.Mutex
	f    *os.File // nil once released
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// AcquireLock takes the apply lock at path, waiting up to timeout (0: try
// once) while another process holds it. holder describes this process in
// the lock file (e.g. "roce-apply plan.roce").
func AcquireLock(ctx context.Context, path string, timeout time.Duration, holder string) (*Lock, error) {
	return AcquireLockNotify(ctx, path, timeout, holder, nil)
}

// AcquireLockNotify is AcquireLock that calls waiting once, with a message
// for the user, when it finds the lock held and is going to wait.
func AcquireLockNotify(ctx context.Context, path string, timeout time.Duration, holder string, waiting func(msg string)) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory of apply lock %s: %w", path, err)
	}
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	notified := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			h := readLockHolder(f)
			f.Close()
			return nil, &LockHeldError{Path: path, Holder: h, Waited: timeout}
		}
		if !notified && waiting != nil {
			notified = true
			waiting(fmt.Sprintf("another roce-apply holds the lock %s: %s; waiting up to %s", path, readLockHolder(f), timeout))
		}
		t := time.NewTimer(min(lockPollInterval, remaining))
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("waiting for apply lock %s: %w", path, ctx.Err())
		case <-t.C:
		}
	}
	if err := writeLockHolder(f, holder); err != nil {
		// A lock nobody can explain to the next pipeline usually means a
		// full or read-only disk, which the apply would hit next: fail now.
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		return nil, fmt.Errorf("recording the holder in apply lock %s: %w", path, err)
	}
	return &Lock{path: path, f: f}, nil
}

// openLockFile opens (or creates, 0644) the lock file without following a
// symlink, and refuses anything that is not a plain file roce could have
// written: a symlink (someone pointing the lock at another file, which
// writing the holder would overwrite), a device, a file with other hard
// links, or a non-empty file that is not a roce lock note. So the lock
// never truncates a file it did not create.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("opening apply lock %s: it is a symbolic link; roce does not follow links for its lock (writing the holder would overwrite the file it points to): remove the link, or point -lock-file at a plain file", path)
		}
		return nil, fmt.Errorf("opening apply lock %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening apply lock %s: %w", path, err)
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("apply lock %s is not a regular file (%s); point -lock-file at a file roce may create", path, st.Mode().Type())
	case sys != nil && sys.Nlink > 1:
		f.Close()
		return nil, fmt.Errorf("apply lock %s has %d hard links; it is shared with another file that roce would overwrite: remove it, or point -lock-file elsewhere", path, sys.Nlink)
	case st.Size() > 0:
		buf := make([]byte, min(st.Size(), maxLockInfoSize))
		n, _ := f.ReadAt(buf, 0)
		if !isLockNote(buf[:n]) {
			f.Close()
			return nil, fmt.Errorf("apply lock %s holds data that is not a roce lock note; roce will not overwrite a file it did not create: move it away, or point -lock-file elsewhere", path)
		}
	}
	return f, nil
}

// isLockNote reports whether data is a holder note written by roce.
func isLockNote(data []byte) bool {
	var h LockHolder
	return json.Unmarshal(data, &h) == nil && h.PID > 0
}

// readLockHolder reads the holder info through the lock's own descriptor.
func readLockHolder(f *os.File) LockHolder {
	buf := make([]byte, maxLockInfoSize)
	n, _ := f.ReadAt(buf, 0) // io.EOF is expected; a short read is fine
	return parseLockHolder(buf[:n])
}

// writeLockHolder replaces the file's contents with this process's info.
func writeLockHolder(f *os.File, command string) error {
	h := LockHolder{PID: os.Getpid(), Command: command, Since: time.Now().UTC()}
	h.Host, _ = os.Hostname()
	if u, err := user.Current(); err == nil {
		h.User = u.Username
	} else {
		h.User = os.Getenv("USER")
	}
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(append(data, '\n'), 0); err != nil {
		return err
	}
	return f.Sync()
}

// Release clears the holder info and releases the lock. It is safe to call
// more than once and from deferred and signal paths alike.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	// Clear the note first, while we still hold the lock, so no one reads
	// a stale holder; the file itself stays (removing a flock file races
	// with a waiter that has it open).
	errTrunc := f.Truncate(0)
	errUnlock := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	errClose := f.Close()
	if err := errors.Join(errTrunc, errUnlock, errClose); err != nil {
		return fmt.Errorf("releasing apply lock %s: %w", l.path, err)
	}
	return nil
}
