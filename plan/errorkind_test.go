package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorKindOf(t *testing.T) {
	conflict := RenderConflict(errors.New("nexus: queuing bandwidth does not fit in 100%"))
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain error is a read error", errors.New("dial tcp: connection refused"), ErrorKindRead},
		{"render conflict", conflict, ErrorKindRender},
		{"render conflict wrapped by the provider", fmt.Errorf("switch.a: %w", conflict), ErrorKindRender},
		{"panic", &internalError{msg: "boom"}, ErrorKindInternal},
		{"stale is not a render conflict", fmt.Errorf("x: %w", ErrStale), ErrorKindRead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ErrorKindOf(tc.err); got != tc.want {
				t.Errorf("ErrorKindOf(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
	if RenderConflict(nil) != nil {
		t.Error("RenderConflict(nil) is not nil")
	}
	if !strings.Contains(conflict.Error(), "does not fit in 100%") || errors.Unwrap(conflict) == nil {
		t.Errorf("RenderConflict changed the message or lost the cause: %v", conflict)
	}
}

// errTarget plans by returning err, or panicking when err is nil.
type errTarget struct {
	addr string
	err  error
}

func (e errTarget) Address() string { return e.addr }
func (e errTarget) Plan(context.Context) (*TargetPlan, error) {
	if e.err == nil {
		panic("index out of range")
	}
	return &TargetPlan{Address: e.addr}, e.err
}
func (e errTarget) Apply(context.Context, *TargetPlan) (*ApplyResult, error) {
	return &ApplyResult{Address: e.addr, Status: StatusRefused}, errors.New("not applicable")
}
func (errTarget) Close() error { return nil }

// The engine sets the error kind from the error a provider returns, and
// every renderer labels the target by it.
func TestEngineSetsErrorKind(t *testing.T) {
	targets := []BoundTarget{
		{Address: "switch.fit", Target: errTarget{"switch.fit", fmt.Errorf("switch.fit: render: %w", RenderConflict(errors.New("queuing bandwidth does not fit")))}},
		{Address: "switch.down", Target: errTarget{"switch.down", errors.New("switch.down: connect: connection refused")}},
		{Address: "switch.bug", Target: errTarget{"switch.bug", nil}},
	}
	var events []string
	e := &Engine{OnTarget: func(addr, status, _ string) {
		if status != "" {
			events = append(events, addr+"|"+status)
		}
	}, Parallelism: 1}
	p := e.Plan(context.Background(), targets)
	want := map[string]string{"switch.fit": ErrorKindRender, "switch.down": ErrorKindRead, "switch.bug": ErrorKindInternal}
	for _, tp := range p.Targets {
		if tp.ErrorKind != want[tp.Address] || tp.Error == "" {
			t.Errorf("%s: error kind %q (error %q), want %q", tp.Address, tp.ErrorKind, tp.Error, want[tp.Address])
		}
	}
	if got := strings.Join(events, ","); got != "switch.fit|does not fit the policy,switch.down|unreadable,switch.bug|internal error" {
		t.Errorf("progress events = %s", got)
	}
	txt, md, js := renderAll(t, p)
	for _, c := range []struct{ doc, out, want string }{
		{"text", txt, "switch.fit: could not be planned: the policy does not fit this switch: render: queuing bandwidth does not fit\n  next: change the policy"},
		{"text", txt, "switch.down: could not be read: connect"},
		{"text", txt, "switch.bug: could not be planned: internal error in roce: internal error while planning: index out of range\n  next: this is a bug in roce"},
		{"text", txt, "the policy does not fit 1 target"},
		{"markdown", md, "- `switch.fit` could not be planned: the policy does not fit this switch: "},
		{"markdown", md, "| `switch.fit` |  | 0 | 0 | 0 | **does not fit the policy** | 0 |"},
		{"markdown", md, "- `switch.down` could not be read: "},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s output lacks %q:\n%s", c.doc, c.want, c.out)
		}
	}
	if strings.Contains(txt, "switch.fit: could not be read") || strings.Contains(md, "`switch.fit` could not be read") {
		t.Errorf("a render conflict is labelled a read error:\n%s\n%s", txt, md)
	}
	var doc struct {
		Targets []struct {
			Address   string `json:"address"`
			ErrorKind string `json:"error_kind"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tp := range doc.Targets {
		if tp.ErrorKind != want[tp.Address] {
			t.Errorf("JSON: %s has error_kind %q, want %q", tp.Address, tp.ErrorKind, want[tp.Address])
		}
	}
}

// A run that ends before a target is read names it "not planned", with
// the kind cancelled, not as a read error. With the context already done
// the engine may still start a few targets (a select between two ready
// cases picks either), so of 30 at least one is left unread.
func TestEngineCancelledTargetsKind(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var targets []BoundTarget
	for i := 0; i < 30; i++ {
		a := fmt.Sprintf("switch.s%d", i)
		targets = append(targets, BoundTarget{Address: a, Target: errTarget{a, errors.New("refused")}})
	}
	p := (&Engine{Parallelism: 1}).Plan(ctx, targets)
	var cancelled *TargetPlan
	for _, tp := range p.Targets {
		switch tp.ErrorKind {
		case ErrorKindCancelled:
			cancelled = tp
			if tp.Error != context.Canceled.Error() {
				t.Errorf("%s: cancelled with error %q", tp.Address, tp.Error)
			}
		case ErrorKindRead:
			if tp.Error != "refused" {
				t.Errorf("%s: read error %q", tp.Address, tp.Error)
			}
		default:
			t.Errorf("%s: kind %q", tp.Address, tp.ErrorKind)
		}
	}
	if cancelled == nil {
		t.Fatal("no target is marked cancelled")
	}
	txt, _, _ := renderAll(t, p)
	if want := cancelled.Address + ": not planned: the run ended before it was read: context canceled\n  next: re-run roce-plan"; !strings.Contains(txt, want) {
		t.Errorf("text lacks %q:\n%s", want, txt)
	}
}
