package policies

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Input limits. A policy may come from an untrusted branch, so every input
// is bounded with a clear error rather than left to exhaust the stack,
// memory or time. The numbers are far above any real fabric (the largest
// example, 1,000 hosts, is 60 KB; the 1,000,000 locals of
// BenchmarkLoad1MLocals are 30 MB).
const (
	maxPolicyFileBytes = 64 << 20  // one *.hcl or var file
	maxPolicyBytes     = 128 << 20 // all *.hcl files of a directory together
	maxPolicyFiles     = 1000      // *.hcl files in the directory
	// maxNestingDepth bounds brackets ( [ { and ${ nested in one file. HCL's
	// parser recurses per level, and 200 KB of "[" would overflow the Go
	// stack, which no recover() can catch; so the source is scanned first.
	maxNestingDepth = 100
	// maxUnaryRun bounds runs of prefix operators ("!!!!x", "- - -x"),
	// which the parser also recurses on.
	maxUnaryRun  = 100
	maxTopBlocks = 1 << 20   // top-level blocks in all files together
	maxLocals    = 4_000_000 // local values in all locals blocks together
)

// readLimited reads a regular file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	tooBig := fmt.Errorf("larger than the limit of %d bytes; a policy file this big is a mistake or an attack", limit)
	if fi.Size() > limit {
		return nil, tooBig
	}
	// One buffer of the size the file has (plus room to see it grew),
	// rather than one doubled up to it.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if int64(len(b)) > limit {
		return nil, tooBig
	}
	return b, nil
}

// checkNesting scans src before HCL parses it and returns an error
// diagnostic at the first bracket or template interpolation nested deeper
// than maxNestingDepth, or at the first prefix operator in a run longer
// than maxUnaryRun. Comments are skipped and string contents count only
// for their ${ } and %{ } interpolations, so separator lines such as
// "# -----" and brackets in text are never mistaken for nesting.
func checkNesting(src []byte, filename string) *hcl.Diagnostic {
	const (
		bracket = iota // ( [ { in expressions
		str            // inside "..."
		interp         // inside ${ } or %{ } of a string
	)
	var stack []int
	unary := 0
	line, col := 1, 1
	advance := func(c byte) {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	top := func() int {
		if len(stack) == 0 {
			return -1
		}
		return stack[len(stack)-1]
	}
	push := func(kind, i int) *hcl.Diagnostic {
		stack = append(stack, kind)
		if len(stack) > maxNestingDepth {
			return nestingDiag(filename, i, line, col, fmt.Sprintf("Brackets and interpolations are nested more than %d levels deep here; a policy never needs that many. Flatten the expression (use locals).", maxNestingDepth))
		}
		return nil
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if top() == str {
			switch {
			case c == '\\' && i+1 < len(src):
				advance(c)
				i++
				c = src[i]
			case c == '"':
				stack = stack[:len(stack)-1]
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
				if d := push(interp, i); d != nil {
					return d
				}
				advance(c)
				i++
				c = src[i]
			}
			advance(c)
			continue
		}
		// Expression text (top level, brackets, interpolations).
		switch {
		case c == '#' || (c == '/' && i+1 < len(src) && src[i+1] == '/'):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				advance('\n')
			}
			unary = 0
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				advance(src[i])
				i++
			}
			i++
			col += 2
			unary = 0
			continue
		}
		switch c {
		case '"':
			if d := push(str, i); d != nil {
				return d
			}
		case '(', '[', '{':
			if d := push(bracket, i); d != nil {
				return d
			}
		case ')', ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1] // a bracket, or the end of an interpolation
			}
		}
		switch c {
		case '!', '-':
			unary++
			if unary > maxUnaryRun {
				return nestingDiag(filename, i, line, col, fmt.Sprintf("More than %d operators in a row; simplify the expression.", maxUnaryRun))
			}
		case ' ', '\t':
		default:
			unary = 0
		}
		advance(c)
	}
	return nil
}

func nestingDiag(filename string, byteOff, line, col int, detail string) *hcl.Diagnostic {
	pos := hcl.Pos{Line: line, Column: col, Byte: byteOff}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Expression nested too deeply", Detail: detail,
		Subject: &hcl.Range{Filename: filename, Start: pos, End: hcl.Pos{Line: line, Column: col + 1, Byte: byteOff + 1}}}
}

// checkBlockCount refuses a policy with more top-level blocks than
// maxTopBlocks; it reports whether it did.
func (l *loader) checkBlockCount(blocks hcl.Blocks) bool {
	if len(blocks) <= maxTopBlocks {
		return false
	}
	l.diags = append(l.diags, errorDiag(blocks[maxTopBlocks].DefRange, "Too many blocks",
		fmt.Sprintf("The policy has %d top-level blocks, more than the limit of %d. Use for_each to declare many switches or hosts from one block.", len(blocks), maxTopBlocks)))
	return true
}

// scanCredentialSettings collects, before anything is evaluated, the
// environment variable names (password_env, key_env) and secret file paths
// (password_file, key_file) written as literals anywhere in the policy:
// env() may read those variables, and file() of those files is sensitive.
func (l *loader) scanCredentialSettings(bodies []hcl.Body) {
	var walk func(b *hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for name, a := range b.Attributes {
			switch name {
			case "password_env", "key_env", "password_file", "key_file":
			default:
				continue
			}
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
				continue
			}
			s := v.AsString()
			switch name {
			case "password_env", "key_env":
				l.envNames[s] = true
			default:
				p := l.path(s)
				if real, err := filepath.EvalSymlinks(p); err == nil {
					p = real
				}
				l.secretFiles[p] = true
			}
		}
		for _, blk := range b.Blocks {
			walk(blk.Body)
		}
	}
	for _, b := range bodies {
		if sb, ok := b.(*hclsyntax.Body); ok {
			walk(sb)
		}
	}
}
