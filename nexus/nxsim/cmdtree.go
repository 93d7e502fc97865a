package nxsim

import (
	"strings"
)

// cmdNode is one word of the exec-mode command grammar. NX-OS accepts any
// unique prefix of a keyword ("sh run ipqos"), and reports where a line went
// wrong with a caret, so the grammar is a tree walked word by word.
type cmdNode struct {
	keywords []*cmdNode // literal words, in help order
	word     string     // for keyword nodes
	arg      *cmdNode   // a free-form argument (name, interface list)
	rest     bool       // this argument swallows the rest of the line
	run      handler    // set when a line may end here
}

// handler runs a matched command; args are the argument words in order.
type handler func(s *session, args []string) (string, error)

// token is one word of the typed line and its column.
type token struct {
	text string
	col  int
}

func tokenize(line string) []token {
	var out []token
	start := -1
	for i := 0; i <= len(line); i++ {
		if i == len(line) || line[i] == ' ' || line[i] == '\t' {
			if start >= 0 {
				out = append(out, token{line[start:i], start})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// add registers a command. Words in <> are arguments; a trailing "..."
// argument swallows the rest of the line; words in [] are optional tails
// handled by registering the shorter command too.
func (n *cmdNode) add(pattern string, h handler) {
	cur := n
	for _, w := range strings.Fields(pattern) {
		switch {
		case strings.HasPrefix(w, "<"):
			if cur.arg == nil {
				cur.arg = &cmdNode{rest: strings.HasSuffix(w, "...>")}
			}
			cur = cur.arg
		default:
			var next *cmdNode
			for _, k := range cur.keywords {
				if k.word == w {
					next = k
				}
			}
			if next == nil {
				next = &cmdNode{word: w}
				cur.keywords = append(cur.keywords, next)
			}
			cur = next
		}
	}
	cur.run = h
}

// matchError is a CLI error at a column of the typed line.
type matchError struct {
	kind string // "invalid" | "incomplete" | "ambiguous"
	col  int
}

// match walks the tree. It returns the handler and the argument words, or
// where and why the line does not parse.
func (n *cmdNode) match(line string) (handler, []string, *matchError) {
	toks := tokenize(line)
	cur := n
	var args []string
	for i, t := range toks {
		if cur.rest {
			args[len(args)-1] = strings.TrimSpace(line[toks[i-1].col:])
			break
		}
		var exact, prefixed []*cmdNode
		for _, k := range cur.keywords {
			lw := strings.ToLower(t.text)
			if k.word == lw {
				exact = append(exact, k)
			} else if strings.HasPrefix(k.word, lw) {
				prefixed = append(prefixed, k)
			}
		}
		switch {
		case len(exact) == 1:
			cur = exact[0]
		case len(prefixed) == 1:
			cur = prefixed[0]
		case len(prefixed) > 1 && cur.arg == nil:
			return nil, nil, &matchError{"ambiguous", t.col}
		case cur.arg != nil:
			cur = cur.arg
			args = append(args, t.text)
		default:
			return nil, nil, &matchError{"invalid", t.col}
		}
	}
	if cur.run == nil {
		return nil, nil, &matchError{"incomplete", len(line)}
	}
	return cur.run, args, nil
}
