package nics

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

var errTestKill = errors.New("killed")

// applyUntil runs an apply and stops it (as a kill would) at the first
// pause point starting with prefix, after running during(); it fails the
// test when no such point is reached.
func applyUntil(t testing.TB, s *System, d *HostState, prefix string, during func()) {
	t.Helper()
	rd, err := s.Read(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	func() {
		defer func() {
			if p := recover(); p != nil && p != errTestKill {
				panic(p)
			}
		}()
		_, _ = s.Apply(context.Background(), rd.Resolved, ApplyOptions{Fingerprint: rd.Fingerprint, Hold: func(point string) {
			if strings.HasPrefix(point, prefix) {
				stopped = true
				during()
				panic(errTestKill)
			}
		}})
	}()
	if !stopped {
		t.Fatalf("the apply never reached %q", prefix)
	}
}

// ncclOrig is what systemWithNCCL's etc/nccl.conf holds before an apply.
const ncclOrig = "NCCL_DEBUG=INFO\n"

// systemWithNCCL opens a System over a fresh root whose etc/nccl.conf
// holds ncclOrig with mode perm; it returns the root, that file's path
// and the System.
func systemWithNCCL(t *testing.T, perm os.FileMode) (root, nccl string, s *System) {
	t.Helper()
	root = t.TempDir()
	nccl = filepath.Join(root, "etc/nccl.conf")
	if err := os.MkdirAll(filepath.Dir(nccl), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nccl, []byte(ncclOrig), perm); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, nccl, s
}

// An operator edits a file roce is applying: recover restores everything
// else but leaves that file as the operator made it, says so and keeps
// the record; once the operator puts the file back, recover completes.
func TestRecoverNeverErasesSomeoneElsesEdit(t *testing.T) {
	root, nccl, s := systemWithNCCL(t, 0o644)
	orig := ncclOrig
	d := &HostState{Files: []FileState{
		{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: []KV{{Key: "NCCL_IB_SL", Value: "3"}}},
		{Path: FileUCX, Format: FormatKV, Exists: true, Entries: []KV{{Key: "UCX_IB_SL", Value: "3"}}},
		{Path: FileMemlock, Format: FormatLines, Exists: true, Lines: []string{"* soft memlock unlimited"}},
	}}
	operator := "NCCL_DEBUG=WARN\nNCCL_IB_SL=3\n"
	applyUntil(t, s, d, "done 2 ", func() {
		if err := os.WriteFile(nccl, []byte(operator), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	rep, err := s.Recover(context.Background(), ApplyOptions{})
	if err == nil || rep.Status != plan.StatusFailed || !strings.Contains(rep.Error, "changed by something else") || !strings.Contains(rep.Error, "nccl.conf") {
		t.Fatalf("recover: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(nccl); string(b) != operator {
		t.Errorf("the operator's edit was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "etc/ucx/ucx.conf")); !os.IsNotExist(err) {
		t.Errorf("roce's own write to ucx.conf was not rolled back: %v", err)
	}
	if rec, err := s.PendingTxn(); err != nil || rec == nil {
		t.Fatalf("the record must stay until the host is consistent: %v %v", rec, err)
	}
	// The operator resolves it; recover finishes.
	if err := os.WriteFile(nccl, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = s.Recover(context.Background(), ApplyOptions{})
	if err != nil || rep.Status != plan.StatusRolledBack {
		t.Fatalf("second recover: %+v %v", rep, err)
	}
	if rec, _ := s.PendingTxn(); rec != nil {
		t.Error("record left after a verified restore")
	}
}

// A file roce wrote and nobody touched is rolled back, and the backup it
// created goes too.
func TestRecoverRestoresRoceWrites(t *testing.T) {
	root, nccl, s := systemWithNCCL(t, 0o640)
	d := &HostState{Files: []FileState{
		{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: []KV{{Key: "NCCL_IB_SL", Value: "3"}}},
		{Path: FileMemlock, Format: FormatLines, Exists: true, Lines: []string{"* soft memlock unlimited"}},
	}}
	applyUntil(t, s, d, "done 1 ", func() {})
	if b, _ := os.ReadFile(nccl); !strings.Contains(string(b), "NCCL_IB_SL=3") {
		t.Fatalf("the apply did not write before the kill: %q", b)
	}
	rep, err := s.Recover(context.Background(), ApplyOptions{})
	if err != nil || rep.Status != plan.StatusRolledBack {
		t.Fatalf("recover: %+v %v", rep, err)
	}
	b, _ := os.ReadFile(nccl)
	st, _ := os.Stat(nccl)
	if string(b) != "NCCL_DEBUG=INFO\n" || st.Mode().Perm() != 0o640 {
		t.Errorf("nccl.conf %q %v after recover", b, st.Mode())
	}
	if _, err := os.Stat(nccl + backupSuffix); !os.IsNotExist(err) {
		t.Error("the backup roce made is still there")
	}
	if _, err := os.Stat(filepath.Join(root, "var")); !os.IsNotExist(err) {
		t.Error("the transaction record's directories are still there")
	}
}

// A cancelled context (SIGTERM, SIGHUP, a deadline) between two steps
// stops the apply before the next one and restores the snapshot.
func TestCancelBetweenStepsRollsBack(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	d := &HostState{Files: []FileState{
		{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: []KV{{Key: "NCCL_IB_SL", Value: "3"}}},
		{Path: FileMemlock, Format: FormatLines, Exists: true, Lines: []string{"* soft memlock unlimited"}},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := s.Apply(ctx, d, ApplyOptions{Hold: func(point string) {
		if strings.HasPrefix(point, "done 1 ") {
			cancel()
		}
	}})
	if err == nil || rep.Status != plan.StatusRolledBack || !strings.Contains(rep.Error, "stopped before step 2") || len(rep.Steps) != 1 {
		t.Fatalf("apply: %+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(root, "etc")); !os.IsNotExist(err) {
		t.Errorf("files left after the rollback: %v", err)
	}
	if rec, _ := s.PendingTxn(); rec != nil {
		t.Error("transaction record left after a verified rollback")
	}
}

// FuzzTxnRecord: whatever is in the transaction record file, reading it
// never panics, and a record it accepts names only managed files and
// survives a round trip.
func FuzzTxnRecord(f *testing.F) {
	root := f.TempDir()
	s, err := Open(root)
	if err != nil {
		f.Fatal(err)
	}
	d := &HostState{Files: []FileState{{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: []KV{{Key: "NCCL_IB_SL", Value: "3"}}}}}
	applyUntil(f, s, d, "step 1 ", func() {})
	seed, err := os.ReadFile(filepath.Join(root, TxnRecordPath))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"version":1,"phase":"applying","desired":{},"snapshot":{"state":{},"fingerprint":"x","files":[{"path":"/etc/shadow","exists":true,"data":"eA=="}]},"steps":[],"reached":0}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, TxnRecordPath)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, in, 0o600); err != nil {
			t.Fatal(err)
		}
		sys := &System{Root: dir}
		rec, err := sys.PendingTxn()
		if err != nil || rec == nil {
			return
		}
		for _, fp := range rec.Snapshot.fileOrder {
			if !IsManagedFile(fp) && !IsManagedFile(strings.TrimSuffix(fp, backupSuffix)) {
				t.Fatalf("accepted a record naming %q", fp)
			}
		}
		if _, err := json.Marshal(rec); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}
