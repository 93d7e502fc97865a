package perftest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeProc builds a /proc tree: net/tcp{,6} lines and per-pid fd/exe links.
func fakeProc(t *testing.T, tcp, tcp6 []string, pids map[int][2]string) string {
	t.Helper()
	proc := t.TempDir()
	hdr := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(proc, "net"), 0o755))
	must(os.WriteFile(filepath.Join(proc, "net/tcp"), []byte(hdr+"\n"+strings.Join(tcp, "\n")+"\n"), 0o644))
	if tcp6 != nil {
		must(os.WriteFile(filepath.Join(proc, "net/tcp6"), []byte(hdr+"\n"+strings.Join(tcp6, "\n")+"\n"), 0o644))
	}
	for pid, v := range pids { // v = {socket inode, exe path}
		dir := filepath.Join(proc, strconv.Itoa(pid))
		must(os.MkdirAll(filepath.Join(dir, "fd"), 0o755))
		must(os.Symlink("/dev/null", filepath.Join(dir, "fd/0")))
		must(os.Symlink("socket:["+v[0]+"]", filepath.Join(dir, "fd/3")))
		if v[1] != "" {
			must(os.Symlink(v[1], filepath.Join(dir, "exe")))
		}
	}
	// Not a pid directory.
	must(os.MkdirAll(filepath.Join(proc, "sys"), 0o755))
	return proc
}

func tcpLine(sl int, localHex, st string, inode int) string {
	return "   " + strconv.Itoa(sl) + ": " + localHex + " 00000000:0000 " + st + " 00000000:00000000 00:00000000 00000000     0        0 " + strconv.Itoa(inode) + " 1 0000000000000000 100 0 0 10 0"
}

func TestReapKillsOnlyPerftestListenersOnThePort(t *testing.T) {
	proc := fakeProc(t,
		[]string{
			tcpLine(0, "00000000:4853", "0A", 1001), // 18515 LISTEN: ib_write_bw
			tcpLine(1, "00000000:4854", "0A", 1002), // 18516 LISTEN: another probe's server
			tcpLine(2, "0100007F:4853", "01", 1003), // 18515 ESTABLISHED: not a listener
			tcpLine(3, "00000000:4853", "0A", 1005), // 18515 LISTEN: nobody visible holds it
		},
		[]string{
			"   0: 00000000000000000000000000000000:4853 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1004 1 0000000000000000 100 0 0 10 0",
		},
		map[int][2]string{
			100: {"1001", "/usr/bin/ib_write_bw (deleted)"},
			200: {"1004", "/usr/sbin/sshd"},
			300: {"1003", "/usr/bin/ib_send_bw"},
			400: {"1002", "/usr/bin/ib_read_bw"},
			500: {"9999", "/usr/bin/ib_write_bw"},
		})
	var killed []int
	r := Reaper{Proc: proc, Kill: func(_ context.Context, pid int) error { killed = append(killed, pid); return nil }}
	got, err := r.Reap(context.Background(), 18515)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(killed, []int{100}) {
		t.Errorf("killed %v, want only the ib_write_bw listening on 18515 (pid 100)", killed)
	}
	var lines []string
	for _, l := range got {
		lines = append(lines, l.String())
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		"stopped a leftover ib_write_bw server (pid 100) that was listening on TCP port 18515",
		"TCP port 18515 is held by sshd (pid 200), left alone: not a perftest tool",
		"socket inode 1005 has no owner",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q:\n%s", want, all)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d leftovers, want 3:\n%s", len(got), all)
	}

	// Nothing on the port: nothing to report, nothing killed.
	killed = nil
	if got, err := r.Reap(context.Background(), 18600); err != nil || len(got) != 0 || len(killed) != 0 {
		t.Errorf("empty port: %v %v %v", got, err, killed)
	}
}

func TestReapReportsAFailedKill(t *testing.T) {
	proc := fakeProc(t, []string{tcpLine(0, "00000000:4853", "0A", 7)}, nil, map[int][2]string{42: {"7", "/opt/perftest/ib_send_bw"}})
	r := Reaper{Proc: proc, Kill: func(context.Context, int) error { return os.ErrPermission }}
	got, err := r.Reap(context.Background(), 18515)
	if err != nil || len(got) != 1 || got[0].Killed || !strings.Contains(got[0].String(), "could not stop it: permission denied") {
		t.Errorf("%+v %v", got, err)
	}
}

func TestReapNeedsProc(t *testing.T) {
	if _, err := (Reaper{Proc: t.TempDir()}).Reap(context.Background(), 18515); err == nil || !strings.Contains(err.Error(), "net/tcp") {
		t.Errorf("missing net/tcp: %v", err)
	}
	if _, err := (Reaper{}).Reap(context.Background(), 0); err == nil {
		t.Error("port 0 accepted")
	}
}

func TestIsTool(t *testing.T) {
	for name, want := range map[string]bool{"ib_write_bw": true, "/usr/bin/ib_read_lat": true, "raw_ethernet_bw": true,
		"sshd": false, "ib_write_bw.sh": false, "": false} {
		if IsTool(name) != want {
			t.Errorf("IsTool(%q) = %v", name, !want)
		}
	}
}
