package nics

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// kvKey returns the key of a "KEY = VALUE" / "KEY=VALUE" line, or "" for
// blank lines, comments and lines without '='.
func kvKey(line string) string {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") {
		return ""
	}
	i := strings.IndexByte(t, '=')
	if i <= 0 {
		return ""
	}
	return strings.TrimSpace(t[:i])
}

func kvValue(line string) string {
	t := strings.TrimSpace(line)
	i := strings.IndexByte(t, '=')
	if i < 0 {
		return ""
	}
	v := strings.TrimSpace(t[i+1:])
	// Open MPI ignores quoting; drop matching quotes so "3" and 3 compare equal.
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return v
}

func renderKV(format, k, v string) string {
	if format == FormatKVSpaced {
		return k + " = " + v
	}
	return k + "=" + v
}

// splitLines splits content into lines without their terminators; final
// reports whether the content ended with a newline.
func splitLines(content []byte) (lines []string, final bool) {
	s := string(content)
	if s == "" {
		return nil, true
	}
	final = strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n"), final
}

func joinLines(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// EditKV sets the owned keys in a KEY=VALUE style file. The first line of
// each owned key is rewritten in place, later duplicates of an owned key
// are dropped (they would override ours), missing keys are appended in
// order, and every other line — comments, foreign keys, blank lines — is
// kept byte for byte.
func EditKV(content []byte, format string, entries []KV) []byte {
	want := make(map[string]string, len(entries))
	for _, e := range entries {
		want[e.Key] = e.Value
	}
	lines, _ := splitLines(content)
	done := make(map[string]bool, len(entries))
	out := make([]string, 0, len(lines)+len(entries))
	for _, l := range lines {
		k := kvKey(l)
		if v, ok := want[k]; ok && k != "" {
			if done[k] {
				continue
			}
			done[k] = true
			if kvValue(l) == v {
				out = append(out, l)
			} else {
				out = append(out, renderKV(format, k, v))
			}
			continue
		}
		out = append(out, l)
	}
	for _, e := range entries {
		if !done[e.Key] {
			out = append(out, renderKV(format, e.Key, e.Value))
			done[e.Key] = true
		}
	}
	return joinLines(out)
}

// ReadKV returns the current value of each owned key (first occurrence
// wins, as EditKV keeps the first), in entries order; absent keys are
// omitted.
func ReadKV(content []byte, keys []string) []KV {
	lines, _ := splitLines(content)
	var out []KV
	for _, k := range keys {
		for _, l := range lines {
			if kvKey(l) == k {
				out = append(out, KV{Key: k, Value: kvValue(l)})
				break
			}
		}
	}
	return out
}

// EditLines makes sure every owned line is present (compared trimmed),
// appending the missing ones; all other lines are kept.
func EditLines(content []byte, owned []string) []byte {
	lines, _ := splitLines(content)
	have := make(map[string]bool, len(lines))
	for _, l := range lines {
		have[strings.TrimSpace(l)] = true
	}
	out := append([]string(nil), lines...)
	for _, o := range owned {
		if !have[strings.TrimSpace(o)] {
			out = append(out, o)
			have[strings.TrimSpace(o)] = true
		}
	}
	return joinLines(out)
}

// EditOwnLines rewrites a file that is roce's alone (named roce-*): its
// non-comment lines become exactly owned, in order — a line an earlier
// apply wrote and the policy no longer wants (def_prec2sl=3 after the
// class moved to priority 4) goes, instead of staying beside the new one.
// Comments and blank lines are kept.
func EditOwnLines(content []byte, owned []string) []byte {
	lines, _ := splitLines(content)
	out := make([]string, 0, len(lines)+len(owned))
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			out = append(out, l)
		}
	}
	return joinLines(append(out, owned...))
}

// ReadLines returns those owned lines present in content.
func ReadLines(content []byte, owned []string) []string {
	lines, _ := splitLines(content)
	have := make(map[string]bool, len(lines))
	for _, l := range lines {
		have[strings.TrimSpace(l)] = true
	}
	var out []string
	for _, o := range owned {
		if have[strings.TrimSpace(o)] {
			out = append(out, o)
		}
	}
	return out
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so readers see the old or the new file, never a
// torn one. The directory is created when missing.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, true)
}

// replaceFile is WriteFileAtomic; sync=false skips the fsync, for state
// that need not outlive the machine (the lab's emulated kernel state: the
// rename still leaves readers, and a killed process, the old or the new
// file).
func replaceFile(path string, data []byte, perm os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".roce-tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
