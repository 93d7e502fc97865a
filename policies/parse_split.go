package policies

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Split parsing of large policy files.
//
// HCL's lexer turns a whole file into one slice of tokens (about eight per
// line of a typical policy, ~100 bytes each, holding pointers) before the
// parser reads any of it; for a 30 MB file that slice grows to 800 MB, a
// quarter at a time, and copying, zeroing and scanning it is most of the
// parse. A big file is therefore cut at line boundaries where the
// lexer is between items, each piece is parsed on its own with the
// position it has in the file (so every range and byte offset is the one a
// parse of the whole file gives), the pieces are parsed in parallel, and
// the results are put back together into the body a whole parse yields.
//
// Correctness comes first: a cut inside a heredoc or a comment could turn
// text into attributes. The scanner below models the lexer's states
// (strings, ${ } and %{ } templates, heredocs, comments, brackets) and
// gives up on anything it is unsure of; any diagnostic from any piece, or
// an attribute defined in two pieces, also falls back to parsing the whole
// file, so error output is exactly what hclsyntax gives for the file.

// splitOptions says when and how finely a file is cut.
type splitOptions struct {
	minBytes   int // files smaller than this are parsed whole
	chunkBytes int // a piece is cut once it holds at least this many bytes
	workers    int // parallel parses; 0 = GOMAXPROCS
}

// defaultSplit: files of a megabyte or more, in pieces of about 4 KiB.
// Below a megabyte a parse takes a few tens of milliseconds and splitting
// it gains nothing worth the extra path. Small pieces because the lexer's
// token slice, once past 256 tokens, grows by a quarter at a time: a
// slice grown to n tokens has cost about 5n in allocations (copied, and
// scanned by the garbage collector). For 1,000,000 locals, 4 KiB pieces
// allocate 3.4 GB where 256 KiB pieces allocate 6.1 GB (a whole parse:
// 6.2 GB); see "Policy load" in docs/performance.md.
var defaultSplit = splitOptions{minBytes: 1 << 20, chunkBytes: 4 << 10}

// piece is a part of a file that is parsed on its own: whole top-level
// items from start to end, or, when cuts is set, one top-level block
// whose body is parsed in chunks. cuts[0] is the start of the body's first
// line (just after the newline that ends the line with the opening brace),
// cuts[len(cuts)-1] the start of the line of its closing brace, and chunk
// k is src[cuts[k]:cuts[k+1]]. The block itself is parsed from its header
// line and its closing line put together (a frame: see splitJobs and
// stitch).
type piece struct {
	start, end int
	cuts       []int
}

// Kinds of open constructs on the scanner's stack.
const (
	openParen   = iota // (
	openBracket        // [
	openBrace          // { of an object or of a block below the top level
	openBody           // { of a top-level block's body
	openInterp         // ${ or %{ (closed by } or ~})
	openString         // "
	openHeredoc        // <<EOT or <<-EOT
)

type open struct {
	kind   uint8
	bol    bool   // heredoc: at the start of a line (the closing marker may follow)
	marker []byte // heredoc: the closing marker
}

// planSplit scans src the way HCL's lexer would and returns the pieces to
// parse, or ok = false when the file must be parsed whole: it is too
// small, or the scanner is unsure of something (invalid UTF-8, a carriage
// return not followed by a newline, an unterminated string, heredoc,
// comment or bracket, brackets that do not match, a heredoc marker that is
// not plain ASCII). Pieces start at the start of a line: after a newline
// at the top level, or, inside a top-level block's body, after a newline
// that ends one of the body's items.
func planSplit(src []byte, o splitOptions) (pieces []piece, ok bool) {
	if len(src) < o.minBytes || !utf8.Valid(src) || loneCR(src) {
		return nil, false
	}
	chunk := max(o.chunkBytes, 1)
	var stack []open
	curStart := 0      // start of the pending piece of whole top-level items
	itemStart := 0     // start of the current top-level item
	sawEquals := false // the current top-level item is an attribute
	// The top-level block body being scanned, and the one closed in the
	// current item (cut into chunks when it is big enough).
	var body, closed []int
	lastLine := -1 // start of the last line begun inside body
	n := len(src)
	endItem := func(next int) {
		if closed != nil {
			if itemStart > curStart {
				pieces = append(pieces, piece{start: curStart, end: itemStart})
			}
			pieces = append(pieces, piece{start: itemStart, end: next, cuts: closed})
			curStart, closed = next, nil
		} else if next-curStart >= chunk && next < n {
			pieces = append(pieces, piece{start: curStart, end: next})
			curStart = next
		}
		itemStart, sawEquals = next, false
	}
	newline := func(i int) { // src[i] == '\n' in expression text
		switch {
		case len(stack) == 0:
			endItem(i + 1)
		case len(stack) == 1 && stack[0].kind == openBody:
			if body == nil || i+1-body[len(body)-1] >= chunk {
				body = append(body, i+1)
			}
			lastLine = i + 1
		}
	}
	pop := func(kinds ...uint8) bool {
		if len(stack) == 0 {
			return false
		}
		top := stack[len(stack)-1].kind
		for _, k := range kinds {
			if top == k {
				stack = stack[:len(stack)-1]
				if k == openInterp && len(stack) > 0 && stack[len(stack)-1].kind == openHeredoc {
					stack[len(stack)-1].bol = false
				}
				return true
			}
		}
		return false
	}
	for i := 0; i < n; {
		if len(stack) > 0 {
			switch top := &stack[len(stack)-1]; top.kind {
			case openString:
				switch c := src[i]; c {
				case '"':
					stack = stack[:len(stack)-1]
					i++
				case '\\':
					if i+1 >= n || src[i+1] == '\n' || src[i+1] == '\r' {
						return nil, false
					}
					i += 2
				case '\n', '\r':
					return nil, false // a quoted string cannot span lines
				case '$', '%':
					i = templateSeq(src, i, &stack)
				default:
					i++
				}
				continue
			case openHeredoc:
				if top.bol {
					nl := bytes.IndexByte(src[i:], '\n')
					if nl < 0 {
						return nil, false // unterminated heredoc
					}
					if bytes.Equal(bytes.TrimSpace(src[i:i+nl]), top.marker) {
						stack = stack[:len(stack)-1]
						i += nl // the newline belongs to the enclosing text
						continue
					}
					top.bol = false
				}
				switch c := src[i]; c {
				case '\n':
					top.bol = true
					i++
				case '$', '%':
					i = templateSeq(src, i, &stack)
				default:
					i++
				}
				continue
			}
		}
		// Expression text: the top level, brackets, template sequences.
		switch c := src[i]; c {
		case '\n':
			newline(i)
			i++
		case '#':
			i = lineEnd(src, i)
		case '/':
			switch {
			case i+1 < n && src[i+1] == '/':
				i = lineEnd(src, i)
			case i+1 < n && src[i+1] == '*':
				e := bytes.Index(src[i+2:], []byte("*/"))
				if e < 0 {
					return nil, false // HCL would read it as "/" "*" and go on
				}
				i += 2 + e + 2
			default:
				i++
			}
		case '"':
			stack = append(stack, open{kind: openString})
			i++
		case '<':
			marker, next, heredoc, sure := heredocIntro(src, i)
			if !sure {
				return nil, false
			}
			if heredoc {
				stack = append(stack, open{kind: openHeredoc, bol: true, marker: marker})
				i = next
			} else {
				i++
			}
		case '(':
			stack = append(stack, open{kind: openParen})
			i++
		case '[':
			stack = append(stack, open{kind: openBracket})
			i++
		case '{':
			if len(stack) == 0 && !sawEquals {
				if closed != nil {
					return nil, false // two blocks on one line: an error
				}
				stack = append(stack, open{kind: openBody})
				body, lastLine = nil, -1
			} else {
				stack = append(stack, open{kind: openBrace})
			}
			i++
		case ')':
			if !pop(openParen) {
				return nil, false
			}
			i++
		case ']':
			if !pop(openBracket) {
				return nil, false
			}
			i++
		case '}':
			if len(stack) == 1 && stack[0].kind == openBody {
				stack = stack[:0]
				if len(body) > 0 && lastLine > body[0] && lastLine-body[0] >= chunk {
					if body[len(body)-1] != lastLine {
						body = append(body, lastLine)
					}
					closed = body
				}
				body = nil
			} else if !pop(openBrace, openInterp) {
				return nil, false
			}
			i++
		case '~':
			if i+1 < n && src[i+1] == '}' {
				if !pop(openInterp) {
					return nil, false
				}
				i += 2
			} else {
				i++
			}
		case '=':
			if len(stack) == 0 {
				sawEquals = true
			}
			i++
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return nil, false
	}
	endItem(n)
	if curStart < n {
		pieces = append(pieces, piece{start: curStart, end: n})
	}
	if len(pieces) < 2 && (len(pieces) == 0 || pieces[0].cuts == nil) {
		return nil, false // one piece: nothing to gain
	}
	return pieces, true
}

// loneCR reports a carriage return not followed by a newline, which HCL's
// lexer reads differently in different places.
func loneCR(src []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\r')
		if j < 0 {
			return false
		}
		i += j + 1
		if i >= len(src) || src[i] != '\n' {
			return true
		}
	}
}

// lineEnd returns the index of the newline that ends the comment starting
// at i (or len(src)); the caller sees the newline as the end of the line.
func lineEnd(src []byte, i int) int {
	if e := bytes.IndexByte(src[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(src)
}

// templateSeq handles a $ or % at src[i] inside a string or heredoc: "${"
// and "%{" open a template sequence, "$${" and "%%{" are escapes for the
// literal text, anything else is a literal character. It returns where
// scanning goes on.
func templateSeq(src []byte, i int, stack *[]open) int {
	c := src[i]
	switch {
	case i+2 < len(src) && src[i+1] == c && src[i+2] == '{':
		return i + 3
	case i+1 < len(src) && src[i+1] == '{':
		if s := *stack; s[len(s)-1].kind == openHeredoc {
			s[len(s)-1].bol = false
		}
		*stack = append(*stack, open{kind: openInterp})
		return i + 2
	}
	return i + 1
}

// heredocIntro reads "<<" or "<<-", an identifier and a newline at
// src[i] the way HCL's lexer does. heredoc says whether it is one (then
// marker is its closing marker and next the index after the newline);
// sure = false when the identifier has non-ASCII letters, whose status as
// identifier characters is left to the real lexer.
func heredocIntro(src []byte, i int) (marker []byte, next int, heredoc, sure bool) {
	n := len(src)
	if i+1 >= n || src[i+1] != '<' {
		return nil, 0, false, true
	}
	j := i + 2
	if j < n && src[j] == '-' {
		j++
	}
	start := j
	for ; j < n; j++ {
		c := src[j]
		if c >= utf8.RuneSelf {
			return nil, 0, false, false
		}
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > start && ('0' <= c && c <= '9' || c == '-')) {
			break
		}
	}
	if j == start {
		return nil, 0, false, true
	}
	marker = src[start:j]
	if j < n && src[j] == '\r' {
		j++
	}
	if j >= n || src[j] != '\n' {
		return nil, 0, false, true
	}
	return marker, j + 1, true, true
}

// parseSplitFile parses src like hclsyntax.ParseConfig does, in pieces
// when planSplit finds them. It stops early, with stopped = true and no
// file, once ctx is done.
func parseSplitFile(ctx context.Context, src []byte, filename string, o splitOptions) (f *hcl.File, diags hcl.Diagnostics, stopped bool) {
	f, stopped, ok := trySplitParse(ctx, src, filename, o)
	if stopped {
		return nil, nil, true
	}
	if !ok {
		f, diags = hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	}
	return f, diags, false
}

// trySplitParse parses src in pieces. ok = false when the file must be
// parsed whole instead: planSplit found no pieces, a piece has a
// diagnostic, or the pieces do not fit together.
func trySplitParse(ctx context.Context, src []byte, filename string, o splitOptions) (f *hcl.File, stopped, ok bool) {
	pieces, ok := planSplit(src, o)
	if !ok {
		return nil, false, false
	}
	jobs := splitJobs(src, pieces)
	if !runJobs(ctx, filename, jobs, o.workers) {
		return nil, ctx.Err() != nil, false
	}
	root, ok := stitch(pieces, jobs)
	if !ok {
		return nil, false, false
	}
	// A file whose navigation (the "in <block>" context of diagnostics)
	// walks the stitched body: hclsyntax's navigation type is unexported,
	// so take an empty file's and give its body the stitched contents.
	f, _ = hclsyntax.ParseConfig(nil, filename, hcl.InitialPos)
	*f.Body.(*hclsyntax.Body) = *root
	f.Bytes = src
	return f, false, true
}

// job is one hclsyntax.ParseConfig call of a split parse.
type job struct {
	src   []byte
	start hcl.Pos
	// frame: src is a block's header line and closing line put together;
	// positions from holeAt on are holeBytes and holeLines further on in
	// the file.
	holeAt, holeBytes, holeLines int
	body                         *hclsyntax.Body
}

// splitJobs lists the parses of the pieces in file order: for a piece
// with cuts, its frame and then its body's chunks.
func splitJobs(src []byte, pieces []piece) []*job {
	var jobs []*job
	line, at := 1, 0
	posAt := func(off int) hcl.Pos { // off never goes back
		line += bytes.Count(src[at:off], []byte{'\n'})
		at = off
		return hcl.Pos{Line: line, Column: 1, Byte: off}
	}
	for _, p := range pieces {
		if p.cuts == nil {
			jobs = append(jobs, &job{src: src[p.start:p.end], start: posAt(p.start)})
			continue
		}
		first, last := p.cuts[0], p.cuts[len(p.cuts)-1]
		frame := &job{start: posAt(p.start), holeAt: first, holeBytes: last - first}
		frame.src = append(append(make([]byte, 0, first-p.start+p.end-last), src[p.start:first]...), src[last:p.end]...)
		jobs = append(jobs, frame)
		firstLine := posAt(first).Line
		for k := 0; k+1 < len(p.cuts); k++ {
			jobs = append(jobs, &job{src: src[p.cuts[k]:p.cuts[k+1]], start: posAt(p.cuts[k])})
		}
		frame.holeLines = posAt(last).Line - firstLine
	}
	return jobs
}

// runJobs parses the jobs on up to workers goroutines (GOMAXPROCS when
// 0). It returns false when a job had a diagnostic or ctx was
// done; the workers then stop after the parse they are in.
func runJobs(ctx context.Context, filename string, jobs []*job, workers int) bool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() && ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k >= len(jobs) {
					return
				}
				j := jobs[k]
				f, diags := hclsyntax.ParseConfig(j.src, filename, j.start)
				if len(diags) > 0 {
					failed.Store(true)
					return
				}
				j.body = f.Body.(*hclsyntax.Body)
			}
		}()
	}
	wg.Wait()
	return !failed.Load() && ctx.Err() == nil
}

// stitch puts the parsed pieces together into the body a whole parse
// yields: top-level attributes merged and blocks in order, each cut
// block's body holding its chunks' attributes and blocks. ok = false when
// an attribute is defined in two pieces (the caller parses the whole file
// for hclsyntax's own "Attribute redefined" error) or a frame holds more
// than its block.
func stitch(pieces []piece, jobs []*job) (*hclsyntax.Body, bool) {
	root := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}}
	k := 0
	var first, last *hclsyntax.Body
	for _, p := range pieces {
		j := jobs[k]
		k++
		if first == nil {
			first = j.body
		}
		last = j.body
		if p.cuts == nil {
			if !mergeBody(root, j.body) {
				return nil, false
			}
			continue
		}
		fr := j.body
		if len(fr.Attributes) != 0 || len(fr.Blocks) != 1 {
			return nil, false
		}
		blk := fr.Blocks[0]
		if len(blk.Body.Attributes) != 0 || len(blk.Body.Blocks) != 0 {
			return nil, false
		}
		for _, r := range []*hcl.Range{&blk.CloseBraceRange, &blk.Body.SrcRange, &blk.Body.EndRange, &fr.SrcRange, &fr.EndRange} {
			j.shift(&r.Start)
			j.shift(&r.End)
		}
		chunks := jobs[k : k+len(p.cuts)-1]
		k += len(chunks)
		n := 0
		for _, c := range chunks {
			n += len(c.body.Attributes)
		}
		blk.Body.Attributes = make(hclsyntax.Attributes, n)
		for _, c := range chunks {
			if !mergeBody(blk.Body, c.body) {
				return nil, false
			}
		}
		root.Blocks = append(root.Blocks, blk)
	}
	root.SrcRange = hcl.RangeBetween(first.SrcRange, last.SrcRange)
	root.EndRange = last.EndRange
	return root, true
}

// shift moves a position of a frame's parse that lies after its hole to
// where it is in the file. Columns stay: the hole is whole lines.
func (j *job) shift(p *hcl.Pos) {
	if p.Byte >= j.holeAt {
		p.Byte += j.holeBytes
		p.Line += j.holeLines
	}
}

// mergeBody adds from's attributes and blocks to into, reporting false
// on an attribute defined in both.
func mergeBody(into, from *hclsyntax.Body) bool {
	for name, a := range from.Attributes {
		// One map operation, not a lookup and an insert: on a name
		// already there the stitched body is dropped anyway.
		n := len(into.Attributes)
		if into.Attributes[name] = a; len(into.Attributes) == n {
			return false
		}
	}
	into.Blocks = append(into.Blocks, from.Blocks...)
	return true
}
