package scenario

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/template"
)

// Runner executes iterations of a Plan for one goroutine: it owns the
// template functions bound to that goroutine, the saved values of the
// current iteration and reusable buffers. It is not safe for concurrent use.
type Runner struct {
	plan      *Plan
	state     *iterState
	vars      map[string]string
	scenarios [][]boundStep
	cur       []boundStep
	buf       bytes.Buffer // rendered template text
	resp      bytes.Buffer // response body, when a check needs it
	limit     io.LimitedReader
	want      map[string]any // expectations with templates rendered
	fail      Failure
}

type boundStep struct {
	*compiledStep
	prefix    string        // base URL without trailing slash
	req       *http.Request // static URL and headers; nil when either is templated
	path      boundText
	headers   []boundHeader
	templHdrs bool
	static    http.Header
	raw       boundText
	leaves    []boundText
	constBody []byte // the body when nothing in it is templated
	expectT   []boundExpect
	needBody  bool
}

type boundExpect struct {
	path  string
	value boundText
}

type boundHeader struct {
	name  string
	value boundText
}

// NewRunner returns a Runner sending requests to baseURL (scheme, host and
// an optional path prefix). vu is the worker id the vu template function
// returns.
func (p *Plan) NewRunner(baseURL string, vu int) (*Runner, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("target url %q: want an absolute http:// or https:// URL such as http://127.0.0.1:8080", baseURL)
	}
	r := &Runner{plan: p, state: newIterState(vu), vars: map[string]string{}, want: map[string]any{}}
	funcs := funcsFor(r.state)
	prefix := strings.TrimRight(base.String(), "/")
	for _, sc := range p.scenarios {
		steps := make([]boundStep, len(sc.steps))
		for i, st := range sc.steps {
			if steps[i], err = bindStep(st, prefix, funcs); err != nil {
				return nil, err
			}
		}
		r.scenarios = append(r.scenarios, steps)
	}
	return r, nil
}

func bindStep(st *compiledStep, prefix string, funcs template.FuncMap) (boundStep, error) {
	b := boundStep{compiledStep: st, prefix: prefix, path: st.path.bind(funcs), static: http.Header{}}
	b.needBody = len(st.expect) > 0 || len(st.expectT) > 0 || len(st.save) > 0
	for _, x := range st.expectT {
		b.expectT = append(b.expectT, boundExpect{path: x.path, value: x.value.bind(funcs)})
	}
	for _, h := range st.headers {
		bh := boundHeader{name: h.name, value: h.value.bind(funcs)}
		if bh.value.templated() {
			b.templHdrs = true
		} else {
			b.static.Set(h.name, h.value.static)
		}
		b.headers = append(b.headers, bh)
	}
	if st.body.json && !b.hasHeader("Content-Type") {
		b.static.Set("Content-Type", "application/json")
	}
	if st.body.raw != nil {
		b.raw = st.body.raw.bind(funcs)
	}
	for _, l := range st.body.leaves {
		b.leaves = append(b.leaves, l.bind(funcs))
	}
	switch {
	case st.body.json && len(b.leaves) == 0:
		b.constBody = st.body.segments[0]
	case st.body.raw != nil && !b.raw.templated() && b.raw.static != "":
		b.constBody = []byte(b.raw.static)
	}
	if !b.path.templated() && !b.templHdrs {
		req, err := http.NewRequest(st.method, prefix+st.path.static, nil)
		if err != nil {
			return b, fmt.Errorf("step %q: %w", st.name, err)
		}
		req.Header = b.static
		b.req = req
	}
	return b, nil
}

func (b *boundStep) hasHeader(name string) bool {
	for _, h := range b.headers {
		if h.name == name {
			return true
		}
	}
	return false
}

// Begin starts iteration seq: it picks the scenario, forgets the values
// saved by the previous iteration and seeds the random stream.
func (r *Runner) Begin(seq uint64) {
	r.cur = r.scenarios[r.plan.Pick(seq)]
	clear(r.vars)
	r.state.begin(r.plan.seed, seq)
}

// Steps is the number of steps of the current iteration's scenario.
func (r *Runner) Steps() int { return len(r.cur) }

// StepID identifies step i of the current scenario; it indexes
// Plan.StepNames.
func (r *Runner) StepID(i int) int { return r.cur[i].id }

// Request builds the request of step i of the current iteration.
// An error means a template failed to render (e.g. randInt 5 1).
func (r *Runner) Request(ctx context.Context, i int) (*http.Request, error) {
	st := &r.cur[i]
	body, err := r.renderBody(st)
	if err != nil {
		return nil, fmt.Errorf("step %q body: %w", st.name, err)
	}
	var req *http.Request
	if st.req != nil {
		req = st.req.WithContext(ctx) // a shallow copy; URL and headers are read-only
	} else if req, err = r.newRequest(ctx, st); err != nil {
		return nil, err
	}
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	return req, nil
}

func (r *Runner) newRequest(ctx context.Context, st *boundStep) (*http.Request, error) {
	if err := st.path.render(&r.buf, r.vars); err != nil {
		return nil, fmt.Errorf("step %q path: %w", st.name, err)
	}
	req, err := http.NewRequestWithContext(ctx, st.method, st.prefix+r.buf.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("step %q: %w", st.name, err)
	}
	if !st.templHdrs {
		req.Header = st.static
		return req, nil
	}
	req.Header = st.static.Clone()
	for i := range st.headers {
		h := &st.headers[i]
		if !h.value.templated() {
			continue
		}
		if err := h.value.render(&r.buf, r.vars); err != nil {
			return nil, fmt.Errorf("step %q header %s: %w", st.name, h.name, err)
		}
		req.Header.Set(h.name, r.buf.String())
	}
	return req, nil
}

// renderBody returns the request body, or nil for none. A constant body is
// shared, not copied; a rendered one is a fresh slice the request owns.
func (r *Runner) renderBody(st *boundStep) ([]byte, error) {
	switch {
	case st.constBody != nil:
		return st.constBody, nil
	case st.body.json:
		var out []byte
		for i := range st.leaves {
			out = append(out, st.body.segments[i]...)
			if err := st.leaves[i].render(&r.buf, r.vars); err != nil {
				return nil, err
			}
			out = appendJSONString(out, r.buf.String())
		}
		return append(out, st.body.segments[len(st.leaves)]...), nil
	case st.raw.templated():
		if err := st.raw.render(&r.buf, r.vars); err != nil {
			return nil, err
		}
		return bytes.Clone(r.buf.Bytes()), nil
	}
	return nil, nil
}
