package scenario

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/template"
)

// Executor executes iterations of a Plan for one goroutine: it renders each
// step's Request and checks its Response. It owns the template functions
// bound to that goroutine, the saved values of the current iteration and
// reusable buffers. It sends nothing itself (the caller's HTTP client does)
// and is not safe for concurrent use.
type Executor struct {
	plan      *Plan
	state     *iterState
	vars      map[string]string
	scenarios [][]boundStep
	cur       []boundStep
	req       Request      // the last rendered request
	hdrs      []Header     // req.Header when a header is templated
	url       []byte       // req.URL when the path is templated
	buf       bytes.Buffer // rendered template text
	resp      bytes.Buffer // response body, when a check needs it
	limit     io.LimitedReader
	want      map[string]any // expectations with templates rendered
	fail      Failure
}

// boundStep is a compiled step bound to one Executor's template functions,
// with everything that does not change between iterations built once.
type boundStep struct {
	*compiledStep
	prefix    string // base URL without trailing slash
	path      boundText
	headers   []boundHeader
	templHdrs bool
	static    []Header    // the constant headers, Content-Type of a JSON body included
	staticNet http.Header // static in net/http's form, when no header is templated
	fixed     *fixedTarget
	raw       boundText
	leaves    []boundText
	constBody []byte // the body when nothing in it is templated
	expectT   []boundExpect
	needBody  bool
}

// fixedTarget is the URL and headers of a step in which neither is
// templated, in the neutral form and in net/http's.
type fixedTarget struct {
	url  string
	http *http.Request
}

type boundExpect struct {
	path  string
	value boundText
}

type boundHeader struct {
	name  string
	value boundText
}

// NewExecutor returns an Executor for requests to baseURL (scheme, host and
// an optional path prefix). vu is the worker id the vu template function
// returns.
func (p *Plan) NewExecutor(baseURL string, vu int) (*Executor, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("target url %q: want an absolute http:// or https:// URL such as http://127.0.0.1:8080", baseURL)
	}
	x := &Executor{plan: p, state: newIterState(vu), vars: map[string]string{}, want: map[string]any{}}
	funcs := funcsFor(x.state)
	prefix := strings.TrimRight(base.String(), "/")
	for _, sc := range p.scenarios {
		steps := make([]boundStep, len(sc.steps))
		for i, st := range sc.steps {
			if steps[i], err = bindStep(st, prefix, funcs); err != nil {
				return nil, err
			}
		}
		x.scenarios = append(x.scenarios, steps)
	}
	return x, nil
}

func bindStep(st *compiledStep, prefix string, funcs template.FuncMap) (boundStep, error) {
	b := boundStep{compiledStep: st, prefix: prefix, path: st.path.bind(funcs)}
	b.needBody = len(st.expect) > 0 || len(st.expectT) > 0 || len(st.save) > 0
	for _, x := range st.expectT {
		b.expectT = append(b.expectT, boundExpect{path: x.path, value: x.value.bind(funcs)})
	}
	for _, h := range st.headers {
		bh := boundHeader{name: h.name, value: h.value.bind(funcs)}
		if bh.value.templated() {
			b.templHdrs = true
		} else {
			b.static = append(b.static, Header{Name: h.name, Value: h.value.static})
		}
		b.headers = append(b.headers, bh)
	}
	if st.body.json && !b.hasHeader("Content-Type") {
		b.static = append(b.static, Header{Name: "Content-Type", Value: "application/json"})
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
	if !b.templHdrs {
		b.staticNet = httpHeader(b.static)
	}
	if !b.path.templated() && !b.templHdrs {
		fixed, err := newFixedTarget(st.method, prefix+st.path.static, b.staticNet)
		if err != nil {
			return b, fmt.Errorf("step %q: %w", st.name, err)
		}
		b.fixed = fixed
	}
	return b, nil
}

func newFixedTarget(method, rawURL string, header http.Header) (*fixedTarget, error) {
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header = header
	return &fixedTarget{url: req.URL.String(), http: req}, nil
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
func (x *Executor) Begin(seq uint64) {
	x.cur = x.scenarios[x.plan.Pick(seq)]
	clear(x.vars)
	x.state.begin(x.plan.seed, seq)
}

// Steps is the number of steps of the current iteration's scenario.
func (x *Executor) Steps() int { return len(x.cur) }

// StepID identifies step i of the current scenario; it indexes
// Plan.StepNames.
func (x *Executor) StepID(i int) int { return x.cur[i].id }
