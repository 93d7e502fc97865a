package nics

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rocefabric/roce/plan"
)

// Tests for what cuts the host agent's cost per call (issue 19) without
// changing what it does: the lab's GID table read through its directory
// listing, unchanged lab state not rewritten, and one durable save of the
// transaction record per file step.

// labGIDs.add fills the lowest free slots, v1 then v2, skips a pair that
// is there already, and del empties exactly the slots of that address.
func TestLabGIDTableIndex(t *testing.T) {
	root := t.TempDir()
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: "g0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	g := labGIDs{sys: s}
	port := "/sys/class/infiniband/mlx5_0/ports/1"
	before, err := g.table(port)
	if err != nil {
		t.Fatal(err)
	}
	// A hole below the used slots is taken first.
	hole := -1
	for n := 0; n < labGIDSlots; n++ {
		if _, ok := before[n]; !ok {
			hole = n
			break
		}
	}
	if hole < 0 {
		t.Fatal("seeded GID table is full")
	}
	if err := g.add("g0", "g0", "10.9.0.7/16"); err != nil {
		t.Fatal(err)
	}
	if err := g.add("g0", "g0", "10.9.0.7/16"); err != nil { // again: no new slots
		t.Fatal(err)
	}
	after, err := g.table(port)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before)+2 {
		t.Fatalf("table went from %d to %d entries, want +2", len(before), len(after))
	}
	want := "0000:0000:0000:0000:0000:ffff:0a09:0007"
	v1, v2 := -1, -1
	for n, e := range after {
		if e.gid == want && e.ndev == "g0" {
			switch e.typ {
			case gidTypeV1:
				v1 = n
			case gidTypeV2:
				v2 = n
			}
		}
	}
	if v1 != hole || v2 <= v1 {
		t.Fatalf("v1 at %d, v2 at %d; want v1 in the lowest free slot %d and v2 after it", v1, v2, hole)
	}
	if idx, err := ResolveGIDIndex(root, "mlx5_0", 1, "g0", "10.9.0.7", "v2"); err != nil || idx != v2 {
		t.Fatalf("ResolveGIDIndex = %d, %v; want %d", idx, err, v2)
	}
	if err := g.del("g0", "g0", "10.9.0.7/16"); err != nil {
		t.Fatal(err)
	}
	final, err := g.table(port)
	if err != nil {
		t.Fatal(err)
	}
	if len(final) != len(before) {
		t.Fatalf("after del: %d entries, want the %d seeded", len(final), len(before))
	}
	for n, e := range before {
		if final[n] != e {
			t.Errorf("slot %d: %+v, was %+v", n, final[n], e)
		}
	}
}

// Saving lab state that did not change leaves the file alone (same
// inode); a change replaces it.
func TestSaveLabSkipsUnchanged(t *testing.T) {
	root := t.TempDir()
	type st struct{ MTU int }
	ino := func() uint64 {
		fi, err := os.Stat(labFile(root, "netdev", "x0"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	if err := saveLab(root, "netdev", "x0", st{1500}); err != nil {
		t.Fatal(err)
	}
	first := ino()
	if err := saveLab(root, "netdev", "x0", st{1500}); err != nil {
		t.Fatal(err)
	}
	if ino() != first {
		t.Error("unchanged lab state was written again")
	}
	if err := saveLab(root, "netdev", "x0", st{9000}); err != nil {
		t.Fatal(err)
	}
	var got st
	if ok, err := loadLab(root, "netdev", "x0", &got); !ok || err != nil || got.MTU != 9000 {
		t.Fatalf("after a change: %+v %v %v", got, ok, err)
	}
	if ino() == first {
		t.Error("changed lab state was not replaced atomically (same inode)")
	}
	if ents, _ := os.ReadDir(filepath.Dir(labFile(root, "netdev", "x0"))); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// When a file step is about to run (its pause point), the record on disk
// already holds the digest of what the step writes: the step and its
// writes cost one durable save, and a kill there still lets recover tell
// roce's write from anyone else's.
func TestFileStepDigestSavedWithStep(t *testing.T) {
	_, nccl, s := systemWithNCCL(t, 0o644)
	orig := ncclOrig
	d := &HostState{Files: []FileState{{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: []KV{{Key: "NCCL_IB_SL", Value: "3"}}}}}
	var rec *TxnRecord
	applyUntil(t, s, d, "step 1 file:", func() {
		var err error
		if rec, err = s.PendingTxn(); err != nil || rec == nil {
			t.Fatalf("record at the step: %v %v", rec, err)
		}
	})
	if rec.Reached != 1 {
		t.Errorf("record reached %d, want 1", rec.Reached)
	}
	newContent := "NCCL_DEBUG=INFO\nNCCL_IB_SL=3\n"
	if got := rec.Written[FileNCCL]; got != contentDigest([]byte(newContent)) {
		t.Errorf("digest of the file's write %q, want that of %q", got, newContent)
	}
	if got := rec.Written[BackupPath(FileNCCL)]; got != contentDigest([]byte(orig)) {
		t.Errorf("digest of the backup %q, want that of %q", got, orig)
	}
	// Killed there, nothing was written yet: recover restores nothing
	// and clears the record.
	rep, err := s.Recover(context.Background(), ApplyOptions{})
	if err != nil || rep.Status != plan.StatusRolledBack {
		t.Fatalf("recover: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(nccl); string(b) != orig {
		t.Errorf("nccl.conf %q, want %q", b, orig)
	}
}

// A file edited between a file step's save and its write (at the step's
// pause point) is read again: roce writes its entries into the edited
// content, never the content it read before the save, and records that
// write's digest first.
func TestFileStepRereadsAfterSave(t *testing.T) {
	_, nccl, s := systemWithNCCL(t, 0o644)
	d := &HostState{Files: []FileState{{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: []KV{{Key: "NCCL_IB_SL", Value: "3"}}}}}
	rd, err := s.Read(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	edited := "NCCL_DEBUG=WARN\n"
	rep, err := s.Apply(context.Background(), rd.Resolved, ApplyOptions{Hold: func(p string) {
		if strings.HasPrefix(p, "step 1 file:") {
			if err := os.WriteFile(nccl, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}})
	if err != nil || rep.Status != plan.StatusApplied {
		t.Fatalf("apply: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(nccl); string(b) != "NCCL_DEBUG=WARN\nNCCL_IB_SL=3\n" {
		t.Errorf("nccl.conf %q: the edit made before the write was lost", b)
	}
}
