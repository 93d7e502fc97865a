package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The apply journal (docs/apply-safety.md) is a write-ahead log of one
// roce-apply run: one file per run in the journal directory beside the
// apply lock, JSON lines, mode 0600, every record fsynced before the step
// it describes is taken. A target that began and has no outcome — or
// whose outcome is "failed" after it recorded a step that may have changed
// it — is interrupted: roce-plan and roce-apply refuse to go on until
// roce-apply -recover has brought it to "fully before" or "fully after".

// JournalFormatVersion is the version of the journal's records. A reader
// refuses records of a newer version.
const JournalFormatVersion = 1

// maxJournalFileSize bounds what is read from one journal file.
const maxJournalFileSize = 256 << 20

// Journal record types.
const (
	recRun      = "run"      // header: who ran the apply
	recBegin    = "begin"    // a target's transaction starts: the target plan
	recStep     = "step"     // a provider step (checkpoint, pushed, set-sent, ...)
	recOutcome  = "outcome"  // the target's apply returned
	recResolved = "resolved" // roce-apply -recover settled the target
)

// journalRecord is one line of a journal file.
type journalRecord struct {
	V       int               `json:"v"`
	Type    string            `json:"type"`
	At      time.Time         `json:"at"`
	Address string            `json:"address,omitempty"`
	Kind    string            `json:"kind,omitempty"`
	Target  *TargetPlan       `json:"target,omitempty"`
	Step    string            `json:"step,omitempty"`
	Detail  map[string]string `json:"detail,omitempty"`
	Status  string            `json:"status,omitempty"`
	Error   string            `json:"error,omitempty"`
	Run     *JournalRun       `json:"run,omitempty"`
}

// JournalRun says which process wrote a journal file.
type JournalRun struct {
	PID     int    `json:"pid"`
	Host    string `json:"host,omitempty"`
	Command string `json:"command,omitempty"`
}

// JournalDir is the journal directory that goes with the apply lock at
// lockPath: a directory "journal" beside it (DIR/.roce/journal by default).
func JournalDir(lockPath string) string {
	return filepath.Join(filepath.Dir(lockPath), "journal")
}

// Journal is the open journal file of one roce-apply run. Its methods are
// safe for concurrent use (targets of a batch apply in parallel).
type Journal struct {
	dir  string
	path string
	now  func() time.Time

	mu      sync.Mutex
	f       *os.File
	begun   map[string]bool // began, and the outcome does not settle it
	stepped map[string]bool // recorded a provider step
}

// CreateJournal starts a new journal file for this run in dir (created
// 0700 when missing). command describes the run for whoever reads the
// journal later ("roce-apply plan.roce").
func CreateJournal(dir, command string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the apply journal directory %s: %w", dir, err)
	}
	now := time.Now
	name := fmt.Sprintf("apply-%s-%d.jsonl", now().UTC().Format("20060102T150405.000000000Z"), os.Getpid())
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the apply journal %s: %w", path, err)
	}
	j := &Journal{dir: dir, path: path, now: now, f: f, begun: map[string]bool{}, stepped: map[string]bool{}}
	if err := syncDir(dir); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("creating the apply journal %s: %w", path, err)
	}
	host, _ := os.Hostname()
	if err := j.write(journalRecord{Type: recRun, Run: &JournalRun{PID: os.Getpid(), Host: host, Command: command}}); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return j, nil
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

// write appends one record and fsyncs it; the caller may hold j.mu or not
// (write takes it).
func (j *Journal) write(r journalRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writeLocked(r)
}

func (j *Journal) writeLocked(r journalRecord) error {
	if j.f == nil {
		return fmt.Errorf("apply journal %s is closed", j.path)
	}
	r.V = JournalFormatVersion
	if r.At.IsZero() {
		r.At = j.now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding an apply journal record: %w", err)
	}
	// One write per record: a kill leaves at most the last line torn,
	// which the reader ignores (the step it describes was not taken).
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing the apply journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("syncing the apply journal %s: %w", j.path, err)
	}
	return nil
}

// Begin records that tp is about to be applied. Nothing may be sent to the
// target unless it returns nil.
func (j *Journal) Begin(tp *TargetPlan) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.writeLocked(journalRecord{Type: recBegin, Address: tp.Address, Kind: tp.Kind, Target: tp}); err != nil {
		return err
	}
	j.begun[tp.Address] = true
	return nil
}

// Recorder returns the Recorder a provider gets (through WithRecorder)
// while it applies the target at address.
func (j *Journal) Recorder(address string) Recorder {
	return journalRecorder{j: j, address: address}
}

type journalRecorder struct {
	j       *Journal
	address string
}

func (r journalRecorder) Record(step string, detail map[string]string) error {
	r.j.mu.Lock()
	defer r.j.mu.Unlock()
	if err := r.j.writeLocked(journalRecord{Type: recStep, Address: r.address, Step: step, Detail: detail}); err != nil {
		return err
	}
	r.j.stepped[r.address] = true
	return nil
}

// Outcome records what the target's apply returned.
func (j *Journal) Outcome(res *ApplyResult) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.writeLocked(journalRecord{Type: recOutcome, Address: res.Address, Status: res.Status, Error: res.Error}); err != nil {
		return err
	}
	if settles(res.Status, j.stepped[res.Address]) {
		delete(j.begun, res.Address)
	}
	return nil
}

// settles reports whether an apply outcome leaves the target consistent:
// everything but "failed" does, and "failed" does when the provider never
// recorded a step (nothing that changes the target was attempted).
func settles(status string, stepped bool) bool {
	return status != StatusFailed || !stepped
}

// Close ends the run's journal. When every target that began was settled,
// the file is removed (there is nothing left to recover); otherwise it
// stays for roce-plan and roce-apply -recover to find.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if err != nil {
		return fmt.Errorf("closing the apply journal %s: %w", j.path, err)
	}
	if len(j.begun) > 0 {
		return nil
	}
	if err := os.Remove(j.path); err != nil {
		return fmt.Errorf("removing the settled apply journal %s: %w", j.path, err)
	}
	return syncDir(j.dir)
}

// Interrupted is a target an earlier run left unsettled.
type Interrupted struct {
	Entry *JournalEntry
	// File is the journal file that holds it; Run and Started say who
	// wrote it and when the target began.
	File    string
	Run     JournalRun
	Started time.Time
	// Outcome is the status the apply returned ("" when it never did:
	// killed) and Error its message.
	Outcome string
	Error   string
}

// State describes in words where the target was left, for the listing
// roce-plan and roce-apply print.
func (in *Interrupted) State() string {
	e := in.Entry
	var s string
	if n := len(e.Steps); n == 0 {
		s = "began, no step recorded (probably nothing was sent)"
	} else {
		last := e.Steps[n-1]
		s = "last step " + strconvQuote(last.Step)
		if len(last.Detail) > 0 {
			var kv []string
			for k, v := range last.Detail {
				if len(v) > 80 {
					continue // snapshots and op lists: too long to list
				}
				kv = append(kv, k+"="+v)
			}
			sort.Strings(kv)
			if len(kv) > 0 {
				s += " (" + strings.Join(kv, ", ") + ")"
			}
		}
	}
	if in.Outcome == "" {
		return s + "; the apply never finished (killed or crashed)"
	}
	return s + "; the apply ended " + in.Outcome + ": " + in.Error
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// ReadJournal lists the targets left interrupted by earlier runs whose
// journal files are in dir, oldest first. A missing directory means none.
func ReadJournal(dir string) ([]*Interrupted, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the apply journal directory %s: %w", dir, err)
	}
	var out []*Interrupted
	for _, de := range ents {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, de.Name())
		ins, err := readJournalFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, ins...)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Started.Before(out[b].Started) })
	return out, nil
}

// openNoFollow opens path for reading without following a symlink.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
}

func readJournalFile(path string) ([]*Interrupted, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, fmt.Errorf("reading the apply journal %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJournalFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the apply journal %s: %w", path, err)
	}
	if len(data) > maxJournalFileSize {
		return nil, fmt.Errorf("the apply journal %s is larger than %d MiB; it was not written by roce-apply", path, maxJournalFileSize>>20)
	}
	return parseJournal(path, data)
}

// parseJournal replays one journal file's records. The last line may be
// torn (a kill during its write): it is ignored, as the step it describes
// was not taken. Any other unreadable line is an error.
func parseJournal(path string, data []byte) ([]*Interrupted, error) {
	type open struct {
		in      *Interrupted
		settled bool
	}
	var run JournalRun
	byAddr := map[string]*open{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxJournalFileSize)
	lineNo := 0
	complete := len(data) == 0 || data[len(data)-1] == '\n'
	nLines := bytes.Count(data, []byte{'\n'})
	if !complete {
		nLines++
	}
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r journalRecord
		if err := json.Unmarshal(line, &r); err != nil {
			if lineNo == nLines && !complete {
				break // torn last record
			}
			return nil, fmt.Errorf("the apply journal %s is corrupt at line %d (%v); it cannot be trusted to say what was sent: check the targets it names by hand, then move the file away", path, lineNo, err)
		}
		if r.V > JournalFormatVersion {
			return nil, fmt.Errorf("the apply journal %s was written by a newer roce (journal format %d, this roce reads %d); run roce-apply -recover with that version", path, r.V, JournalFormatVersion)
		}
		if r.V < 1 {
			return nil, fmt.Errorf("the apply journal %s line %d has no format version; it was not written by roce-apply", path, lineNo)
		}
		switch r.Type {
		case recRun:
			if r.Run != nil {
				run = *r.Run
			}
		case recBegin:
			if r.Address == "" || r.Target == nil {
				return nil, fmt.Errorf("the apply journal %s line %d: a begin record without a target", path, lineNo)
			}
			o := &open{in: &Interrupted{File: path, Started: r.At, Entry: &JournalEntry{Address: r.Address, Kind: r.Kind, Target: r.Target, Steps: []JournalStep{}}}}
			if _, seen := byAddr[r.Address]; !seen {
				order = append(order, r.Address)
			}
			byAddr[r.Address] = o
		case recStep:
			if o := byAddr[r.Address]; o != nil {
				o.in.Entry.Steps = append(o.in.Entry.Steps, JournalStep{Step: r.Step, Detail: r.Detail, At: r.At})
			}
		case recOutcome:
			if o := byAddr[r.Address]; o != nil {
				o.in.Outcome, o.in.Error = r.Status, r.Error
				o.settled = settles(r.Status, len(o.in.Entry.Steps) > 0)
			}
		case recResolved:
			if o := byAddr[r.Address]; o != nil {
				o.settled = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the apply journal %s: %w", path, err)
	}
	var out []*Interrupted
	for _, a := range order {
		if o := byAddr[a]; !o.settled {
			o.in.Run = run
			out = append(out, o.in)
		}
	}
	return out, nil
}

// Resolve records that in was settled by recovery (res says how) and
// removes its journal file once nothing in it is left unsettled.
func Resolve(in *Interrupted, res *ApplyResult) error {
	f, err := os.OpenFile(in.File, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("marking %s resolved in the apply journal %s: %w", in.Entry.Address, in.File, err)
	}
	r := journalRecord{V: JournalFormatVersion, Type: recResolved, At: time.Now().UTC(), Address: in.Entry.Address, Status: res.Status, Error: res.Error}
	b, err := json.Marshal(r)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("marking %s resolved in the apply journal %s: %w", in.Entry.Address, in.File, err)
	}
	left, err := readJournalFile(in.File)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return nil
	}
	if err := os.Remove(in.File); err != nil {
		return fmt.Errorf("removing the resolved apply journal %s: %w", in.File, err)
	}
	return syncDir(filepath.Dir(in.File))
}

// syncDir fsyncs a directory so a file created, renamed or removed in it
// survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening directory %s to sync it: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// DescribeInterrupted is the listing both CLIs print: which targets, in
// which state, and what to run next.
func DescribeInterrupted(ins []*Interrupted, recoverCmd string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d target(s) were left by an interrupted roce-apply and may be half-configured:\n", len(ins))
	for _, in := range ins {
		who := ""
		if in.Run.PID != 0 {
			who = fmt.Sprintf(", roce-apply pid %d on %s", in.Run.PID, in.Run.Host)
		}
		fmt.Fprintf(&b, "  %s (%s): began %s%s; %s\n", in.Entry.Address, in.Entry.Kind,
			in.Started.UTC().Format("2006-01-02 15:04:05 MST"), who, in.State())
		fmt.Fprintf(&b, "      journal: %s\n", in.File)
	}
	fmt.Fprintf(&b, "Run `%s` to bring each of them fully back or fully forward (it reads each one back and says which); see docs/apply-safety.md#interrupted.", recoverCmd)
	return b.String()
}

// Partial splits the targets that could not be read or planned out of p:
// it returns a copy holding the rest, with the others listed in Excluded.
func Partial(p *Plan) *Plan {
	q := *p
	q.Targets = nil
	q.Excluded = append([]Excluded(nil), p.Excluded...)
	for _, tp := range p.Targets {
		if tp.Error != "" {
			q.Excluded = append(q.Excluded, Excluded{Address: tp.Address, Error: tp.Error, ErrorKind: tp.ErrorKind})
			continue
		}
		q.Targets = append(q.Targets, tp)
	}
	if q.Targets == nil {
		q.Targets = []*TargetPlan{}
	}
	return &q
}

// DescribeExcluded names the targets a partial plan leaves out, for
// roce-apply to print before it asks.
func DescribeExcluded(ex []Excluded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This is a PARTIAL plan: %d target(s) could not be read or planned when it was made and will NOT be changed:\n", len(ex))
	for _, e := range ex {
		why := "could not be read"
		switch e.ErrorKind {
		case ErrorKindRender:
			why = "the policy does not fit it"
		case ErrorKindInternal:
			why = "roce failed on it (a bug)"
		case ErrorKindCancelled:
			why = "the run ended before it was read"
		}
		fmt.Fprintf(&b, "  %s (%s): %s\n", e.Address, why, e.Error)
	}
	b.WriteString("A lossless class must be the same on both ends of every link: if a left-out switch or host is the peer of one in this plan,\n" +
		"applying the rest leaves that link with PFC on one end only (pause frames ignored, drops under load). Apply the rest only if\n" +
		"none of them shares a link with a changed target, and run roce-plan again once they are reachable.\n")
	return b.String()
}

// PruneJournal removes the journal files in dir in which every target is
// settled: left when a run was killed after its last outcome but before it
// removed its file. Call it only while holding the apply lock, so no run
// is writing one of them.
func PruneJournal(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the apply journal directory %s: %w", dir, err)
	}
	removed := false
	for _, de := range ents {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, de.Name())
		ins, err := readJournalFile(path)
		if err != nil {
			return err
		}
		if len(ins) == 0 {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("removing the settled apply journal %s: %w", path, err)
			}
			removed = true
		}
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}
