package policies

import (
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
// example, 1,000 hosts, is 60 KB; 1,000,000 locals are 20 MB).
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
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than the limit of %d bytes; a policy file this big is a mistake or an attack", limit)
	}
	return b, nil
}

// checkNesting scans src before HCL parses it and returns an error
// diagnostic at the first bracket nested deeper than maxNestingDepth, or
// the first prefix operator in a run longer than maxUnaryRun. Brackets in
// strings and comments count too: the bound is far above real policies.
func checkNesting(src []byte, filename string) *hcl.Diagnostic {
	depth, unary := 0, 0
	line, col := 1, 1
	for i, c := range src {
		switch c {
		case '(', '[', '{':
			depth++
			if depth > maxNestingDepth {
				return nestingDiag(filename, i, line, col, fmt.Sprintf("Brackets are nested more than %d levels deep here; a policy never needs that many. Flatten the expression (use locals).", maxNestingDepth))
			}
		case ')', ']', '}':
			if depth > 0 {
				depth--
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
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
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
