package cli

import (
	"bytes"
	"io"
	"sort"
	"sync"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// SensitiveMark is what an output shows in place of a secret.
const SensitiveMark = "(sensitive)"

// RedactWriter is an output (stdout, stderr, the log) that never lets a
// known secret through: a device may echo the password it was sent — in a
// banner, a refusal, a "show" answer or a gNMI field — and roce prints
// device text in plans, errors and logs, which CI posts on pull requests.
// Every form of every credential and sensitive value of the policy
// (Secrets) is replaced by SensitiveMark, also when a secret arrives split
// across two writes: the writer holds back only the longest tail that
// could still start a secret, so a prompt without a newline still shows
// unless it ends like the start of a password. Flush writes what is held
// back; call it before exiting.
type RedactWriter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets [][]byte // longest first, so a secret inside another goes with it
	first   [256]bool
	held    []byte
}

// NewRedactWriter wraps w. With no secrets it passes writes through.
func NewRedactWriter(w io.Writer, secrets []plan.Redaction) *RedactWriter {
	r := &RedactWriter{w: w}
	r.SetSecrets(secrets)
	return r
}

// SetSecrets replaces the secrets the writer hides: the CLIs create their
// outputs before the policy is loaded and name its secrets once it is.
func (r *RedactWriter) SetSecrets(secrets []plan.Redaction) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets, r.first = nil, [256]bool{}
	seen := map[string]bool{}
	for _, s := range secrets {
		if s.Value == "" || seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		r.secrets = append(r.secrets, []byte(s.Value))
		r.first[s.Value[0]] = true
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// Unwrap returns the writer underneath (terminal detection looks through).
func (r *RedactWriter) Unwrap() io.Writer { return r.w }

// RedactSecrets makes every RedactWriter among ws hide the policy's
// secrets (Secrets(fab)); other writers are left alone (tests).
func RedactSecrets(fab *policies.Fabric, ws ...io.Writer) {
	var secrets []plan.Redaction
	for _, w := range ws {
		if rw, ok := w.(*RedactWriter); ok {
			if secrets == nil {
				secrets = Secrets(fab)
			}
			rw.SetSecrets(secrets)
		}
	}
}

// Write redacts and passes on p, holding back a possible secret's start.
// It reports len(p) written when the underlying write succeeds.
func (r *RedactWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out, held := r.process(append(r.held, p...), false)
	r.held = append([]byte(nil), held...)
	if len(out) > 0 {
		if _, err := r.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held back, redacted: no more text can complete a
// secret it starts.
func (r *RedactWriter) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) == 0 {
		return nil
	}
	out, _ := r.process(r.held, true)
	r.held = nil
	_, err := r.w.Write(out)
	return err
}

// process scans b left to right: at each position the longest secret that
// matches whole is replaced; where the rest of b is the start of a secret
// (which the next write may complete), the scan stops and that rest is
// held (unless final). Replacing a short secret inside the start of a
// longer one before the longer one is complete would leak the longer one's
// other part, hence the wait.
func (r *RedactWriter) process(b []byte, final bool) (out, held []byte) {
	if len(r.secrets) == 0 {
		return b, nil
	}
	out = make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		rest := b[i:]
		if !r.first[rest[0]] {
			out = append(out, rest[0])
			i++
			continue
		}
		full, wait := 0, false
		for _, s := range r.secrets { // longest first
			switch {
			case len(rest) >= len(s):
				if full == 0 && bytes.HasPrefix(rest, s) {
					full = len(s)
				}
			case !final && bytes.HasPrefix(s, rest):
				wait = true
			}
		}
		switch {
		case wait:
			return out, rest
		case full > 0:
			out = append(out, SensitiveMark...)
			i += full
		default:
			out = append(out, rest[0])
			i++
		}
	}
	return out, nil
}
