package scenario

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

// Executor executes iterations of a Plan for one goroutine: it renders each
// step's Request and checks its Response. It owns the template functions
// bound to that goroutine, the saved values of the current iteration and
// reusable buffers. It sends nothing itself (the caller's HTTP client does)
// and is not safe for concurrent use.
type Executor struct {
	plan       *Plan
	state      *iterState
	vars       map[string]string
	scenarios  [][]boundStep
	cur        []boundStep
	req        Request      // the last rendered request
	hdrs       []Header     // req.Header when a header is templated
	url        []byte       // req.URL when the path is templated
	buf        bytes.Buffer // rendered template text
	resp       bytes.Buffer // response body, when a check needs it
	limit      io.LimitedReader
	fail       Failure
	kept       map[string]string // what setup saved, which every iteration starts with
	setup      [stages][]boundStep
	masker     *strings.Replacer // the plan's secrets and the long values setup saved
	feedErr    error             // the feed has no row for the current iteration
	jar        *jar              // nil: load.cookies is off
	keptJar    []cookie          // the cookies setup left
	origin     int               // the length of the base URL's scheme and host
	setCookies []string          // the Set-Cookie fields of the last response
}

// boundStep is a compiled step bound to one Executor's template functions,
// with everything that does not change between iterations built once.
type boundStep struct {
	*compiledStep
	prefix    string // base URL without trailing slash
	path      *text
	headers   []header
	templHdrs bool
	static    []Header    // the constant headers, Content-Type of a JSON or form body included
	staticNet http.Header // static in net/http's form, when no header is templated
	fixed     *fixedTarget
	raw       *text
	leaves    []*text
	constBody []byte // the body when nothing in it is templated
	bodyCap   int    // the largest rendered body yet, which sizes the next
	expectT   []expectTemplate
	needBody  bool
	ownCookie bool // the step sets its own Cookie header: the jar adds none
}

// fixedTarget is the URL and headers of a step in which neither is
// templated, in the neutral form and in net/http's.
type fixedTarget struct {
	url  string
	http *http.Request
}

// NewExecutor returns an Executor for requests to baseURL (scheme, host and
// an optional path prefix). vu is the worker id the vu template function
// returns.
func (p *Plan) NewExecutor(baseURL string, vu int) (*Executor, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("target url %q: want an absolute http:// or https:// URL such as http://127.0.0.1:8080", baseURL)
	}
	x := &Executor{plan: p, state: newIterState(vu, p), vars: map[string]string{},
		kept: map[string]string{}, masker: newMasker(p.secrets), origin: len(base.Scheme + "://" + base.Host)}
	if !p.noCookies {
		x.jar = newJar(base)
	}
	if f := p.feed; f != nil && !f.perIteration {
		if x.state.row, err = f.row(uint64(vu), fmt.Sprintf("virtual user %d", vu+1)); err != nil {
			return nil, err
		}
	}
	funcs := funcsFor(x.state)
	prefix := strings.TrimRight(base.String(), "/")
	for _, sc := range p.scenarios {
		steps, err := bindSteps(sc, prefix, funcs)
		if err != nil {
			return nil, err
		}
		x.scenarios = append(x.scenarios, steps)
	}
	for st, sc := range p.setup {
		if sc != nil {
			if x.setup[st], err = bindSteps(sc, prefix, funcs); err != nil {
				return nil, err
			}
		}
	}
	return x, nil
}

func bindSteps(sc *compiledScenario, prefix string, funcs template.FuncMap) (steps []boundStep, err error) {
	steps = make([]boundStep, len(sc.steps))
	for i, st := range sc.steps {
		if steps[i], err = bindStep(st, prefix, funcs); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

func bindStep(st *compiledStep, prefix string, funcs template.FuncMap) (boundStep, error) {
	b := boundStep{compiledStep: st, prefix: prefix, path: st.path.bind(funcs)}
	b.needBody = len(st.expect) > 0 || len(st.expectT) > 0 || slices.ContainsFunc(st.save, saveRule.fromBody)
	for _, x := range st.expectT {
		b.expectT = append(b.expectT, expectTemplate{path: x.path, value: x.value.bind(funcs)})
	}
	for _, h := range st.headers {
		bh := header{name: h.name, value: h.value.bind(funcs)}
		if bh.value.templated() {
			b.templHdrs = true
		} else {
			b.static = append(b.static, Header{Name: h.name, Value: h.value.static})
		}
		b.headers = append(b.headers, bh)
	}
	b.ownCookie = b.hasHeader("Cookie")
	if st.body.contentType != "" && !b.hasHeader("Content-Type") {
		b.static = append(b.static, Header{Name: "Content-Type", Value: st.body.contentType})
	}
	if st.body.raw != nil {
		b.raw = st.body.raw.bind(funcs)
	}
	for i, l := range st.body.leaves {
		b.leaves = append(b.leaves, l.bind(funcs))
		b.bodyCap += len(st.body.segments[i]) + 16
	}
	switch {
	case st.body.escape != nil && len(b.leaves) == 0:
		b.constBody = st.body.segments[0]
	case st.body.raw != nil && !b.raw.templated() && b.raw.static != "":
		b.constBody = []byte(b.raw.static)
	}
	if !b.templHdrs {
		b.staticNet = httpHeader(b.static)
	}
	if !b.path.templated() && !b.templHdrs {
		req, err := http.NewRequest(st.method, prefix+st.path.static, nil)
		if err != nil {
			return b, fmt.Errorf("step %q: %w", st.name, err)
		}
		req.Header = b.staticNet
		b.fixed = &fixedTarget{url: req.URL.String(), http: req}
	}
	return b, nil
}

func (b *boundStep) hasHeader(name string) bool {
	return slices.ContainsFunc(b.headers, func(h header) bool { return h.name == name })
}

// Begin starts iteration seq: it picks the scenario, forgets the values
// saved by the previous iteration and seeds the random stream.
func (x *Executor) Begin(seq uint64) {
	x.cur = x.scenarios[x.plan.Pick(seq)]
	x.startWithKept()
	x.state.begin(x.plan.seed, seq)
	if f := x.plan.feed; f != nil && f.perIteration {
		x.state.row, x.feedErr = f.row(seq, fmt.Sprintf("iteration %d of the run", seq+1))
	}
}

// Err is why the current iteration cannot run (the feed's rows ran out), or nil.
func (x *Executor) Err() error { return x.feedErr }

// startWithKept starts an iteration or a setup stage with the values
// and cookies setup left: none of the previous iteration's.
func (x *Executor) startWithKept() {
	clear(x.vars)
	maps.Copy(x.vars, x.kept)
	if x.jar != nil {
		x.jar.reset(x.keptJar)
	}
}

func (p *Plan) HasSetup(st Stage) bool { return p.setup[st] != nil }

// BeginSetup makes the setup steps of stage st the current steps: they see
// the values kept so far and, in SetupVU, this virtual user's feed row.
// Run them with Request and Check like an iteration's, then EndSetup.
func (x *Executor) BeginSetup(st Stage) {
	x.cur = x.setup[st]
	x.startWithKept()
	x.state.begin(x.plan.seed, 1<<63+uint64(st)) // a setup stage's random values, far from any iteration's
	x.state.seq = 0                              // {{seq}} counts iterations; setup is none
}

// EndSetup keeps what the setup steps left for every later step of this Executor.
func (x *Executor) EndSetup() {
	s := Session{values: x.vars}
	if x.jar != nil {
		s.cookies = slices.Clone(x.jar.cookies)
	}
	x.Keep(s)
}

// Session is what setup leaves a virtual user: the values its steps
// saved and the cookies its responses set. It is immutable once made.
type Session struct {
	values  map[string]string
	cookies []cookie
}

func (s Session) Cookies() int { return len(s.cookies) }

func (x *Executor) Kept() Session {
	return Session{values: maps.Clone(x.kept), cookies: slices.Clone(x.keptJar)}
}

// Keep adds a session (another Executor's, or one of an earlier run) to
// what every iteration starts with; long values and cookies (tokens,
// sessions) are masked in messages from then on.
func (x *Executor) Keep(s Session) {
	maps.Copy(x.kept, s.values)
	if x.jar != nil && len(s.cookies) > 0 {
		merged := jar{cookies: x.keptJar}
		merged.merge(s.cookies)
		x.keptJar = merged.cookies
	}
	secrets, long := slices.Collect(maps.Values(x.plan.env)), false
	add := func(v string) {
		if len(v) >= minKeptSecret {
			secrets, long = append(secrets, v), true
		}
	}
	for _, v := range x.kept {
		add(v)
	}
	for _, c := range x.keptJar {
		add(c.value)
	}
	if long {
		x.masker = newMasker(maskForms(secrets))
	}
}

// Mask replaces in s every secret this Executor knows of (the values of
// {{env}} variables and the long values setup saved) by ***, so that a
// message about a response can be shown and stored.
func (x *Executor) Mask(s string) string {
	if x.masker == nil {
		return s
	}
	return x.masker.Replace(s)
}

func (x *Executor) Steps() int { return len(x.cur) }

// StepID indexes Plan.StepNames for step i of the current steps; setup: -1.
func (x *Executor) StepID(i int) int { return x.cur[i].id }

func (x *Executor) StepName(i int) string { return x.cur[i].name }

// Describe says what step i's exchange sent and got, for a message about
// a failed setup step, secrets masked: `POST /login → 401 {"error":"bad
// password"} (want 200)`. fail and err are Check's or the client's.
func (x *Executor) Describe(i int, fail *Failure, err error) string {
	st := &x.cur[i]
	line := st.method + " " + strings.TrimPrefix(x.req.URL, st.prefix)
	switch {
	case err != nil:
		return x.Mask(line + ": " + err.Error())
	case fail.Kind == StatusMismatch:
		want := "2xx"
		if st.status != 0 {
			want = strconv.Itoa(st.status)
		}
		return x.Mask(fmt.Sprintf("%s → %s (want %s)", line, fail.Message(), want))
	}
	return x.Mask(fmt.Sprintf("%s → %d: %s", line, fail.Status, fail.Message()))
}
