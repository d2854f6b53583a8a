package scenario

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// text is one compiled string: a constant, or (with "{{") a template.
type text struct {
	static string
	tmpl   *template.Template // nil for a constant
}

func compileText(where, s string, sc *scope) (*text, error) {
	if !strings.Contains(s, "{{") {
		return &text{static: s}, nil
	}
	t, err := template.New(where).Funcs(funcsFor(nil)).Option("missingkey=error").Parse(s)
	if err == nil {
		err = sc.checkInputs(t.Tree.Root)
	}
	if err == nil {
		err = checkFields(t.Tree.Root, sc.saved, sc.savedBy)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &text{tmpl: t}, nil
}

// checkFields reports a {{.name}} no earlier step saves: a typo fails the
// compile, not every iteration.
func checkFields(n parse.Node, saved map[string]bool, savedBy string) error {
	var err error
	walk(n, func(n parse.Node) {
		f, ok := n.(*parse.FieldNode)
		if !ok || err != nil {
			return
		}
		switch {
		case len(f.Ident) > 1:
			err = fmt.Errorf("%s: saved values are strings and have no fields", f)
		case !saved[f.Ident[0]]:
			err = fmt.Errorf("%s is not saved by an earlier step %s (saved: %s)", f, savedBy, savedList(saved))
		}
	})
	return err
}

func walk(n parse.Node, visit func(parse.Node)) {
	if n == nil {
		return
	}
	visit(n)
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walk(c, visit)
		}
	case *parse.ActionNode:
		walk(n.Pipe, visit)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walk(c, visit)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			walk(a, visit)
		}
	case *parse.ChainNode:
		walk(n.Node, visit)
	case *parse.IfNode:
		walkBranch(&n.BranchNode, visit)
	case *parse.RangeNode:
		walkBranch(&n.BranchNode, visit)
	case *parse.WithNode:
		walkBranch(&n.BranchNode, visit)
	case *parse.TemplateNode:
		walk(n.Pipe, visit)
	}
}

func walkBranch(b *parse.BranchNode, visit func(parse.Node)) {
	walk(b.Pipe, visit)
	walk(b.List, visit)
	walk(b.ElseList, visit)
}

func savedList(saved map[string]bool) string {
	if len(saved) == 0 {
		return "none"
	}
	return "." + strings.Join(slices.Sorted(maps.Keys(saved)), ", .")
}

// iterState is what the template functions read: the iteration number,
// the worker id and a random stream seeded from (seed, seq), whichever
// goroutine runs the iteration.
type iterState struct {
	seq  uint64
	vu   int
	pcg  rand.PCG
	rng  *rand.Rand
	env  map[string]string // the variables {{env}} reads
	feed *feedRows         // nil without a feed
	row  []string          // the current row
}

func newIterState(vu int, p *Plan) *iterState {
	s := &iterState{vu: vu, env: p.env, feed: p.feed}
	s.rng = rand.New(&s.pcg)
	return s
}

func (s *iterState) begin(seed int64, seq uint64) {
	s.seq = seq
	s.pcg.Seed(uint64(seed), mix(seq, 0x7e3a11))
}

const alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// funcsFor returns the template functions bound to s (nil: for parsing only).
func funcsFor(s *iterState) template.FuncMap {
	return template.FuncMap{
		"seq": func() uint64 { return s.seq },
		"vu":  func() int { return s.vu },
		"randInt": func(lo, hi int) (int, error) {
			if hi < lo {
				return 0, fmt.Errorf("randInt %d %d: the upper bound is below the lower bound", lo, hi)
			}
			return lo + s.rng.IntN(hi-lo+1), nil
		},
		"randString": func(n int) (string, error) {
			if n < 0 || n > MaxBodyBytes {
				return "", fmt.Errorf("randString %d: length must be between 0 and %d", n, MaxBodyBytes)
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = alphanumeric[s.rng.IntN(len(alphanumeric))]
			}
			return string(b), nil
		},
		// env and feed read values checked when the plan was compiled:
		// a name that is not set, a column that does not exist, or a row
		// where there is none fails the compile, not an iteration.
		"env":  func(name string) string { return s.env[name] },
		"feed": func(column string) string { return s.row[s.feed.columns[column]] },
		"uuid": func() string {
			var u [16]byte
			binary.LittleEndian.PutUint64(u[:8], s.rng.Uint64())
			binary.LittleEndian.PutUint64(u[8:], s.rng.Uint64())
			u[6] = u[6]&0x0f | 0x40 // version 4
			u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
			return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
		},
	}
}

func (t *text) templated() bool { return t != nil && t.tmpl != nil }

// bind binds t to one Executor's template functions (a constant: t itself).
func (t *text) bind(funcs template.FuncMap) *text {
	if t.tmpl == nil {
		return t
	}
	c := template.Must(t.tmpl.Clone()) // Clone fails only after Execute of an html/template
	return &text{tmpl: c.Funcs(funcs)}
}

// render writes the value into buf (reset first).
func (t *text) render(buf *bytes.Buffer, vars map[string]string) error {
	buf.Reset()
	if t.tmpl == nil {
		buf.WriteString(t.static)
		return nil
	}
	return t.tmpl.Execute(buf, vars)
}
