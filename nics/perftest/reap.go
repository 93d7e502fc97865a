package perftest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultTCPPort is perftest's rendezvous port when -p is not given.
const DefaultTCPPort = 18515

// reapWait bounds how long Reap waits for a killed server to exit (and
// release its port) before the new server starts.
const reapWait = 10 * time.Second

// IsTool reports whether an executable's base name is a perftest program
// (Debian's perftest package installs exactly these).
func IsTool(name string) bool {
	switch filepath.Base(name) {
	case ToolWriteBW, ToolSendBW, ToolReadBW, "ib_atomic_bw",
		"ib_write_lat", "ib_send_lat", "ib_read_lat", "ib_atomic_lat",
		"raw_ethernet_bw", "raw_ethernet_lat", "raw_ethernet_burst_lat", "raw_ethernet_fs_rate":
		return true
	}
	return false
}

// Leftover is a process found listening on a probe's TCP port before its
// server side started: a perftest server left by an earlier run that
// crashed or was killed (stopped), or another program (left alone).
type Leftover struct {
	Port   int    `json:"port"`
	PID    int    `json:"pid,omitempty"` // 0 when no visible process holds the socket
	Exe    string `json:"exe,omitempty"` // base name of /proc/<pid>/exe
	Killed bool   `json:"killed"`
	Note   string `json:"note,omitempty"` // why it was left alone, or what failed
}

func (l Leftover) String() string {
	switch {
	case l.Killed:
		return fmt.Sprintf("stopped a leftover %s server (pid %d) that was listening on TCP port %d", l.Exe, l.PID, l.Port)
	case l.PID == 0:
		return fmt.Sprintf("TCP port %d is held by a process this agent cannot see: %s", l.Port, l.Note)
	}
	return fmt.Sprintf("TCP port %d is held by %s (pid %d), left alone: %s", l.Port, orUnknown(l.Exe), l.PID, l.Note)
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown program"
	}
	return s
}

// Reaper finds what listens on a probe's TCP port and stops it only when
// it is a perftest tool: /proc/net/tcp{,6} (LISTEN on the port) → socket
// inode → the /proc/<pid>/fd holding it → /proc/<pid>/exe.
type Reaper struct {
	// Proc is the proc mount to scan; "" = /proc. Tests point it at a
	// fake tree (and set Kill).
	Proc string
	// Kill stops one process and waits until it is gone; nil = SIGKILL
	// through a pidfd after re-checking, in the real /proc, that the pid
	// is still a perftest tool, then wait for it to exit.
	Kill func(ctx context.Context, pid int) error
}

func (r Reaper) proc() string {
	if r.Proc == "" {
		return "/proc"
	}
	return r.Proc
}

// Reap stops every perftest process listening on TCP port and reports each
// listener it found, killed or not. Anything that is not a perftest tool
// is never signalled.
func (r Reaper) Reap(ctx context.Context, port int) ([]Leftover, error) {
	if port <= 0 || port > 65535 {
		return nil, fmt.Errorf("perftest: TCP port %d is outside 1-65535", port)
	}
	inodes, err := listenInodes(r.proc(), port)
	if err != nil || len(inodes) == 0 {
		return nil, err
	}
	holders := socketHolders(ctx, r.proc(), inodes)
	var out []Leftover
	seen := map[uint64]bool{}
	for _, h := range holders {
		seen[h.inode] = true
		l := Leftover{Port: port, PID: h.pid, Exe: h.exe}
		switch {
		case h.exe == "":
			l.Note = "its executable could not be read"
		case !IsTool(h.exe):
			l.Note = "not a perftest tool; the probe's server will fail to bind — stop it or set probe { base_port }"
		default:
			kill := r.Kill
			if kill == nil {
				kill = killPerftest
			}
			if err := kill(ctx, h.pid); err != nil {
				l.Note = "could not stop it: " + err.Error()
			} else {
				l.Killed = true
			}
		}
		out = append(out, l)
	}
	for ino := range inodes {
		if !seen[ino] {
			out = append(out, Leftover{Port: port, Note: fmt.Sprintf("socket inode %d has no owner in %s (another user's process, or one in another PID namespace)", ino, r.proc())})
		}
	}
	return out, nil
}

// listenInodes returns the socket inodes listening on port in
// <proc>/net/tcp and tcp6 (the reading process's network namespace).
func listenInodes(proc string, port int) (map[uint64]bool, error) {
	inodes := map[uint64]bool{}
	found := false
	for _, name := range []string{"tcp", "tcp6"} {
		p := filepath.Join(proc, "net", name)
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // no IPv6, or a minimal tree
		}
		if err != nil {
			return nil, fmt.Errorf("perftest: reading %s: %w", p, err)
		}
		found = true
		sc := bufio.NewScanner(f)
		first := true
		for sc.Scan() {
			if first { // header line
				first = false
				continue
			}
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fl := strings.Fields(sc.Text())
			if len(fl) < 10 || fl[3] != "0A" { // 0A = TCP_LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fl[1], ":")
			if !ok {
				continue
			}
			lp, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil || int(lp) != port {
				continue
			}
			ino, err := strconv.ParseUint(fl[9], 10, 64)
			if err != nil || ino == 0 {
				continue
			}
			inodes[ino] = true
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("perftest: reading %s: %w", p, err)
		}
	}
	if !found {
		return nil, fmt.Errorf("perftest: no %s/net/tcp to look for leftover servers in (is /proc mounted?)", proc)
	}
	return inodes, nil
}

type holder struct {
	pid   int
	exe   string
	inode uint64
}

// socketHolders finds the processes with an fd on one of the inodes.
// Processes that vanish or can't be read are skipped.
func socketHolders(ctx context.Context, proc string, inodes map[uint64]bool) []holder {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []holder
	for _, e := range ents {
		if ctx.Err() != nil {
			return out
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 || (pid == self && proc == "/proc") {
			continue
		}
		fdDir := filepath.Join(proc, e.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil {
				continue
			}
			s, ok := strings.CutPrefix(link, "socket:[")
			if !ok {
				continue
			}
			ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
			if err != nil || !inodes[ino] {
				continue
			}
			out = append(out, holder{pid: pid, exe: exeName(proc, pid), inode: ino})
			break
		}
	}
	return out
}

// exeName is the base name of /proc/<pid>/exe ("" when unreadable).
func exeName(proc string, pid int) string {
	link, err := os.Readlink(filepath.Join(proc, strconv.Itoa(pid), "exe"))
	if err != nil {
		return ""
	}
	return filepath.Base(strings.TrimSuffix(link, " (deleted)"))
}

// killPerftest stops a real process: it pins the process with a pidfd,
// re-checks in /proc that it is (still) a perftest tool — so a pid reused
// since the scan is never signalled — sends SIGKILL through the pidfd and
// waits until the process has exited and its sockets are closed.
func killPerftest(ctx context.Context, pid int) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return nil // already gone
		}
		return fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	if exe := exeName("/proc", pid); !IsTool(exe) {
		return fmt.Errorf("pid %d is now %s, not a perftest tool; not signalled", pid, orUnknown(exe))
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return nil
		}
		return fmt.Errorf("kill %d: %w", pid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, reapWait)
	defer cancel()
	for {
		// A pidfd becomes readable when the process exits.
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 100)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("waiting for pid %d to exit: %w", pid, err)
		}
		if n > 0 {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("pid %d did not exit after SIGKILL: %w", pid, ctx.Err())
		}
	}
}
