package plan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func journalTP(addr string) *TargetPlan {
	return &TargetPlan{Address: addr, Kind: "nexus5000", Fingerprint: "sha256:before-" + addr,
		Changes: []Change{{Address: "system qos", Action: ActionUpdate}}, Commands: []string{"system qos"}}
}

// What a run leaves in the journal decides what the next run calls
// interrupted: a begin without an outcome, or "failed" after a step.
func TestJournalInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, j *Journal)
		want map[string]string // address -> last step ("" none); nil: nothing interrupted
	}{
		{"nothing began", func(t *testing.T, j *Journal) {}, nil},
		{"applied", func(t *testing.T, j *Journal) {
			must(t, j.Begin(journalTP("switch.a")))
			must(t, j.Recorder("switch.a").Record("checkpoint", map[string]string{"checkpoint": "roce-1"}))
			must(t, j.Outcome(&ApplyResult{Address: "switch.a", Status: StatusApplied}))
		}, nil},
		{"killed before any step", func(t *testing.T, j *Journal) {
			must(t, j.Begin(journalTP("switch.a")))
		}, map[string]string{"switch.a": ""}},
		{"killed after the checkpoint", func(t *testing.T, j *Journal) {
			must(t, j.Begin(journalTP("switch.a")))
			must(t, j.Recorder("switch.a").Record("checkpoint", map[string]string{"checkpoint": "roce-1"}))
		}, map[string]string{"switch.a": "checkpoint"}},
		{"failed with nothing sent settles", func(t *testing.T, j *Journal) {
			must(t, j.Begin(journalTP("switch.a")))
			must(t, j.Outcome(&ApplyResult{Address: "switch.a", Status: StatusFailed, Error: "connect: refused"}))
		}, nil},
		{"failed after a step stays", func(t *testing.T, j *Journal) {
			must(t, j.Begin(journalTP("switch.a")))
			must(t, j.Recorder("switch.a").Record("pushed", nil))
			must(t, j.Outcome(&ApplyResult{Address: "switch.a", Status: StatusFailed, Error: "rollback refused"}))
		}, map[string]string{"switch.a": "pushed"}},
		{"two targets, one finished", func(t *testing.T, j *Journal) {
			must(t, j.Begin(journalTP("switch.a")))
			must(t, j.Begin(journalTP("switch.b")))
			must(t, j.Recorder("switch.b").Record("set-sent", map[string]string{"commit": "roce-1"}))
			must(t, j.Outcome(&ApplyResult{Address: "switch.a", Status: StatusRolledBack}))
		}, map[string]string{"switch.b": "set-sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "journal")
			j, err := CreateJournal(dir, "roce-apply test")
			must(t, err)
			tc.run(t, j)
			path := j.Path()
			st, err := os.Stat(path)
			must(t, err)
			if st.Mode().Perm() != 0o600 {
				t.Errorf("journal mode %v, want 0600", st.Mode().Perm())
			}
			// Read while the run is still "alive" (as after a SIGKILL).
			ins, err := ReadJournal(dir)
			must(t, err)
			got := map[string]string{}
			for _, in := range ins {
				last := ""
				if n := len(in.Entry.Steps); n > 0 {
					last = in.Entry.Steps[n-1].Step
				}
				got[in.Entry.Address] = last
				if in.Entry.Target == nil || in.Entry.Target.Fingerprint != "sha256:before-"+in.Entry.Address {
					t.Errorf("%s: the entry does not carry the target plan", in.Entry.Address)
				}
				if in.Run.Command != "roce-apply test" {
					t.Errorf("run header not read: %+v", in.Run)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("interrupted %v, want %v", got, tc.want)
			}
			for a, s := range tc.want {
				if g, ok := got[a]; !ok || g != s {
					t.Fatalf("interrupted %v, want %v", got, tc.want)
				}
			}
			must(t, j.Close())
			_, err = os.Stat(path)
			if tc.want == nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a settled journal must be removed on close (stat: %v)", err)
			}
			if tc.want != nil && err != nil {
				t.Errorf("an unsettled journal must stay: %v", err)
			}
		})
	}
}

// A kill while a record is being written leaves a torn last line: the
// step it describes was not taken, and the rest still reads. A torn line
// anywhere else, or a newer format, is refused.
func TestJournalTornAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	j, err := CreateJournal(dir, "x")
	must(t, err)
	must(t, j.Begin(journalTP("switch.a")))
	must(t, j.Recorder("switch.a").Record("checkpoint", map[string]string{"checkpoint": "roce-1"}))
	path := j.Path()
	j.f.Close()
	j.f = nil
	good, err := os.ReadFile(path)
	must(t, err)

	torn := append(append([]byte{}, good...), []byte(`{"v":1,"type":"step","address":"switch.a","step":"pus`)...)
	must(t, os.WriteFile(path, torn, 0o600))
	ins, err := ReadJournal(dir)
	must(t, err)
	if len(ins) != 1 || ins[0].Entry.Steps[len(ins[0].Entry.Steps)-1].Step != "checkpoint" {
		t.Fatalf("torn last record: got %+v", ins)
	}

	lines := strings.SplitAfter(string(good), "\n")
	corrupt := lines[0] + "{garbage\n" + strings.Join(lines[1:], "")
	must(t, os.WriteFile(path, []byte(corrupt), 0o600))
	if _, err := ReadJournal(dir); err == nil || !strings.Contains(err.Error(), "corrupt at line 2") {
		t.Fatalf("a corrupt middle line must be refused, got %v", err)
	}

	newer := string(good) + `{"v":99,"type":"step","address":"switch.a","step":"x"}` + "\n"
	must(t, os.WriteFile(path, []byte(newer), 0o600))
	if _, err := ReadJournal(dir); err == nil || !strings.Contains(err.Error(), "newer roce") {
		t.Fatalf("a newer journal format must be refused, got %v", err)
	}
}

// Resolve marks a target settled and removes the file when nothing in it
// is left.
func TestJournalResolve(t *testing.T) {
	dir := t.TempDir()
	j, err := CreateJournal(dir, "x")
	must(t, err)
	must(t, j.Begin(journalTP("switch.a")))
	must(t, j.Begin(journalTP("switch.b")))
	must(t, j.Close())
	ins, err := ReadJournal(dir)
	must(t, err)
	if len(ins) != 2 {
		t.Fatalf("want 2 interrupted, got %d", len(ins))
	}
	must(t, Resolve(ins[0], &ApplyResult{Address: "switch.a", Status: StatusRolledBack}))
	left, err := ReadJournal(dir)
	must(t, err)
	if len(left) != 1 || left[0].Entry.Address != "switch.b" {
		t.Fatalf("after resolving switch.a: %+v", left)
	}
	must(t, Resolve(left[0], &ApplyResult{Address: "switch.b", Status: StatusApplied}))
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) != 0 {
		t.Fatalf("a fully resolved journal must be removed: %v", files)
	}
	msg := DescribeInterrupted(ins, "roce-apply -recover .")
	for _, want := range []string{"switch.a (nexus5000)", "switch.b", "never finished", "roce-apply -recover ."} {
		if !strings.Contains(msg, want) {
			t.Errorf("the listing lacks %q:\n%s", want, msg)
		}
	}
}

// A journal file that is a symlink is not followed.
func TestJournalDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	must(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
	must(t, os.Symlink(victim, filepath.Join(dir, "apply-x.jsonl")))
	if _, err := ReadJournal(dir); err == nil || !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("a symlinked journal must be refused, got %v", err)
	}
}

// recoverTarget scripts Recover and the read-back plan.
type recoverTarget struct {
	addr      string
	status    string
	recErr    error
	readBack  *TargetPlan
	recovered int
}

func (r *recoverTarget) Address() string { return r.addr }
func (r *recoverTarget) Plan(context.Context) (*TargetPlan, error) {
	return r.readBack, nil
}
func (r *recoverTarget) Apply(context.Context, *TargetPlan) (*ApplyResult, error) {
	return &ApplyResult{Status: StatusFailed}, errors.New("not in this test")
}
func (r *recoverTarget) Close() error { return nil }
func (r *recoverTarget) Recover(context.Context, *JournalEntry) (*ApplyResult, error) {
	r.recovered++
	return &ApplyResult{Address: r.addr, Status: r.status}, r.recErr
}

// plainTarget has no Recoverer: only the read-back decides.
type plainTarget struct{ recoverTarget }

func (p *plainTarget) Recover() {}

// The engine trusts a provider's recovery only after reading the target
// back, and resolves the journal only for a consistent target.
func TestEngineRecoverReadsBack(t *testing.T) {
	empty := &TargetPlan{Fingerprint: "sha256:after", Changes: []Change{}}
	asBefore := &TargetPlan{Fingerprint: "sha256:before-switch.a", Changes: []Change{{Address: "x"}}}
	between := &TargetPlan{Fingerprint: "sha256:between", Changes: []Change{{Address: "x"}}}
	for _, tc := range []struct {
		name     string
		target   Target
		want     string
		resolved bool
	}{
		{"applied and empty", &recoverTarget{addr: "switch.a", status: StatusApplied, readBack: empty}, StatusApplied, true},
		{"rolled back and as before", &recoverTarget{addr: "switch.a", status: StatusRolledBack, readBack: asBefore}, StatusRolledBack, true},
		{"says rolled back, reads in between", &recoverTarget{addr: "switch.a", status: StatusRolledBack, readBack: between}, StatusFailed, false},
		{"says applied, reads in between", &recoverTarget{addr: "switch.a", status: StatusApplied, readBack: between}, StatusFailed, false},
		{"provider failed", &recoverTarget{addr: "switch.a", status: StatusFailed, recErr: errors.New("checkpoint gone"), readBack: empty}, StatusFailed, false},
		{"no Recoverer, as before", &plainTarget{recoverTarget{addr: "switch.a", readBack: asBefore}}, StatusRolledBack, true},
		{"no Recoverer, in between", &plainTarget{recoverTarget{addr: "switch.a", readBack: between}}, StatusFailed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j, err := CreateJournal(dir, "x")
			must(t, err)
			must(t, j.Begin(journalTP("switch.a")))
			must(t, j.Close())
			ins, err := ReadJournal(dir)
			must(t, err)
			e := &Engine{}
			rs := e.Recover(context.Background(), ins, []BoundTarget{{Address: "switch.a", Target: tc.target}})
			if rs[0].Status != tc.want {
				t.Fatalf("status %q (%s), want %q", rs[0].Status, rs[0].Error, tc.want)
			}
			left, err := ReadJournal(dir)
			must(t, err)
			if tc.resolved != (len(left) == 0) {
				t.Fatalf("resolved = %v, want %v", len(left) == 0, tc.resolved)
			}
		})
	}
	// A target gone from the policy cannot be recovered and stays.
	dir := t.TempDir()
	j, err := CreateJournal(dir, "x")
	must(t, err)
	must(t, j.Begin(journalTP("switch.gone")))
	must(t, j.Close())
	ins, _ := ReadJournal(dir)
	rs := (&Engine{}).Recover(context.Background(), ins, nil)
	if rs[0].Status != StatusFailed || !strings.Contains(rs[0].Error, "no such target") {
		t.Fatalf("a target missing from the policy: %+v", rs[0])
	}
}

// Apply writes begin before the provider runs and the outcome after; a
// journal that cannot be written stops the target before anything is sent.
func TestEngineApplyJournals(t *testing.T) {
	dir := t.TempDir()
	j, err := CreateJournal(dir, "x")
	must(t, err)
	var sawRecorder bool
	tgt := &funcTarget{addr: "switch.a", apply: func(ctx context.Context, tp *TargetPlan) (*ApplyResult, error) {
		ins, err := ReadJournal(dir)
		must(t, err)
		if len(ins) != 1 || ins[0].Entry.Address != "switch.a" {
			t.Errorf("begin not durable before the provider ran: %+v", ins)
		}
		_, sawRecorder = RecorderFrom(ctx).(journalRecorder)
		return &ApplyResult{Status: StatusApplied}, nil
	}}
	p := &Plan{Targets: []*TargetPlan{journalTP("switch.a")}}
	e := &Engine{Journal: j}
	rs, err := e.Apply(context.Background(), p, []BoundTarget{{Address: "switch.a", Target: tgt}}, RolloutOptions{})
	must(t, err)
	if rs[0].Status != StatusApplied || !sawRecorder {
		t.Fatalf("status %q, recorder handed over %v", rs[0].Status, sawRecorder)
	}
	must(t, j.Close())

	// A closed journal: the target must not be touched.
	called := false
	tgt.apply = func(context.Context, *TargetPlan) (*ApplyResult, error) {
		called = true
		return &ApplyResult{Status: StatusApplied}, nil
	}
	rs, err = e.Apply(context.Background(), p, []BoundTarget{{Address: "switch.a", Target: tgt}}, RolloutOptions{})
	must(t, err)
	if called || rs[0].Status != StatusFailed || !strings.Contains(rs[0].Error, "nothing was sent") {
		t.Fatalf("an unwritable journal must stop the target: called %v, %+v", called, rs[0])
	}
}

type funcTarget struct {
	addr  string
	apply func(context.Context, *TargetPlan) (*ApplyResult, error)
}

func (f *funcTarget) Address() string                           { return f.addr }
func (f *funcTarget) Plan(context.Context) (*TargetPlan, error) { return nil, errors.New("no") }
func (f *funcTarget) Close() error                              { return nil }
func (f *funcTarget) Apply(ctx context.Context, tp *TargetPlan) (*ApplyResult, error) {
	return f.apply(ctx, tp)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzParseJournal: a journal is read from disk after crashes, so any
// bytes must give entries or an error, never a panic, and every entry
// must carry its target.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"run","at":"2026-11-24T02:00:00Z","run":{"pid":1}}` + "\n" +
		`{"v":1,"type":"begin","at":"2026-11-24T02:00:01Z","address":"switch.a","kind":"nexus5000","target":{"address":"switch.a","kind":"nexus5000","changes":[]}}` + "\n" +
		`{"v":1,"type":"step","address":"switch.a","step":"checkpoint","detail":{"checkpoint":"roce-1"}}` + "\n"))
	f.Add([]byte(`{"v":1,"type":"begin","address":"host.x","target":{}}` + "\n" + `{"v":1,"type":"outcome","address":"host.x","status":"failed"}`))
	f.Add([]byte("{garbage\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ins, err := parseJournal("fuzz.jsonl", data)
		if err != nil {
			return
		}
		for _, in := range ins {
			if in.Entry == nil || in.Entry.Target == nil || in.Entry.Address == "" {
				t.Fatalf("entry without target: %+v", in)
			}
			_ = in.State()
		}
	})
}

// A run killed after its last outcome but before removing its file leaves
// a settled journal: nothing is interrupted, and PruneJournal removes it
// while keeping files that still hold an interrupted target.
func TestPruneJournal(t *testing.T) {
	dir := t.TempDir()
	settled, err := CreateJournal(dir, "x")
	must(t, err)
	must(t, settled.Begin(journalTP("switch.a")))
	must(t, settled.Outcome(&ApplyResult{Address: "switch.a", Status: StatusApplied}))
	open, err := CreateJournal(dir, "y")
	must(t, err)
	must(t, open.Begin(journalTP("switch.b")))
	must(t, PruneJournal(dir))
	if _, err := os.Stat(settled.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the settled journal must be removed: %v", err)
	}
	if _, err := os.Stat(open.Path()); err != nil {
		t.Fatalf("a journal with an interrupted target must stay: %v", err)
	}
	must(t, PruneJournal(filepath.Join(dir, "missing")))
}

// OnTarget tells a CLI when each target starts and ends, for the progress
// lines written when stderr is not a terminal.
func TestEngineOnTargetEvents(t *testing.T) {
	var events []string
	e := &Engine{OnTarget: func(addr, status, detail string) {
		events = append(events, addr+"|"+status+"|"+detail)
	}}
	tgt := &funcTarget{addr: "switch.a", apply: func(context.Context, *TargetPlan) (*ApplyResult, error) {
		return &ApplyResult{Status: StatusApplied}, nil
	}}
	p := &Plan{Targets: []*TargetPlan{journalTP("switch.a")}}
	if _, err := e.Apply(context.Background(), p, []BoundTarget{{Address: "switch.a", Target: tgt}}, RolloutOptions{Canary: 1}); err != nil {
		t.Fatal(err)
	}
	e.Plan(context.Background(), []BoundTarget{{Address: "switch.a", Target: tgt}})
	want := []string{"switch.a||applying (canary)", "switch.a|applied|", "switch.a||reading", "switch.a|unreadable|no"}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}

// A partial plan keeps why each target was left out: a render conflict is
// not told as an unreachable device, in the plan file or in what
// roce-apply prints before it asks.
func TestPartialKeepsErrorKind(t *testing.T) {
	p := &Plan{Targets: []*TargetPlan{
		{Address: "switch.a", Error: "dial tcp: connection refused", ErrorKind: ErrorKindRead},
		{Address: "switch.b", Error: "queue bandwidth 60 % does not fit beside FCoE's 40 %", ErrorKind: ErrorKindRender},
		{Address: "host.c"},
	}}
	q := Partial(p)
	if len(q.Targets) != 1 || q.Targets[0].Address != "host.c" {
		t.Fatalf("targets kept: %+v", q.Targets)
	}
	if len(q.Excluded) != 2 || q.Excluded[1].ErrorKind != ErrorKindRender {
		t.Fatalf("excluded: %+v", q.Excluded)
	}
	got := DescribeExcluded(q.Excluded)
	for _, want := range []string{
		"2 target(s) could not be read or planned",
		"switch.a (could not be read): dial tcp",
		"switch.b (the policy does not fit it): queue bandwidth",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
	// A plan saved before error_kind existed reads as a read error.
	if got := DescribeExcluded([]Excluded{{Address: "switch.old", Error: "timeout"}}); !strings.Contains(got, "switch.old (could not be read): timeout") {
		t.Errorf("old plan: %s", got)
	}
}
