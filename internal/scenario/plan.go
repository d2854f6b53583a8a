// Package scenario owns what one iteration does: the weighted choice of a
// scenario, its steps compiled once into request templates, the
// deterministic random values those templates draw, the values saved from one
// response for the next steps, and the checks on every response. It knows
// nothing about rates, workers or timing; internal/load drives it.
package scenario

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// MaxBodyBytes bounds what is read of a body for expectations and saves.
const MaxBodyBytes = 1 << 20

// Plan is the compiled form of a benchmark's scenarios: immutable, each
// goroutine executes it through its own Executor.
type Plan struct {
	seed      int64
	scenarios []*compiledScenario
	cumWeight []uint64                  // cumulative weights, for the weighted pick
	stepNames []string                  // unique step names; a step's ID indexes this
	setup     [stages]*compiledScenario // nil for a stage without steps
	env       map[string]string         // every variable the templates read with {{env}}
	secrets   []string                  // the forms of env's values masked in messages
	feed      *feedRows                 // nil without a feed
	noCookies bool
	// setupByVU and setupByRow: the setup.vu steps read {{vu}}, or the
	// virtual user's feed row, so that two users' logins differ.
	setupByVU, setupByRow bool
}

// Logins is how many times a phase of workers runs the setup.vu steps:
// per virtual user (closed), per identity (open, SetupIdentity).
func (p *Plan) Logins(open bool, workers int) int {
	switch {
	case !p.HasSetup(SetupVU) || workers <= 0:
		return 0
	case !open || p.setupByVU || (p.setupByRow && (p.feed == nil || p.feed.fail)):
		return workers
	case p.setupByRow:
		return min(workers, len(p.feed.rows))
	}
	return 1
}

// SetupIdentity says whose login the setup.vu steps of virtual user vu
// (0-based) make, so that users of one identity (the open model's workers
// among them) share it: vu where the steps read {{vu}}, the user's feed
// row where they read the feed, else 0.
func (p *Plan) SetupIdentity(vu int) int {
	switch {
	case p.setupByVU:
		return vu
	case p.setupByRow && p.feed != nil && !p.feed.fail:
		return vu % len(p.feed.rows)
	case p.setupByRow:
		return vu // at_end: fail: a user beyond the rows fails its own setup
	}
	return 0
}

type compiledScenario struct {
	name  string
	steps []*compiledStep
}

type compiledStep struct {
	id        int // index into Plan.stepNames
	name      string
	method    string
	path      *text
	headers   []header
	body      body
	status    int // 0 = any 2xx
	expect    map[string]any
	expectT   []expectTemplate // expected values that are templates ({"id": "{{.id}}"}), rendered per response
	expectHdr []headerExpect   // expect.header
	save      []saveRule
}

type headerExpect struct {
	name string
	re   *regexp.Regexp
}

type expectTemplate struct {
	path  string
	value *text
}

type header struct {
	name  string
	value *text
}

// saveRule saves a variable from a response (from: config.SaveJSON,
// SaveHeader, SaveCookie or SaveBody; path the path or name read), through
// re when it is set.
type saveRule struct {
	name, from, path string
	re               *regexp.Regexp
}

func (s saveRule) fromBody() bool { return s.from == config.SaveJSON || s.from == config.SaveBody }

// Inputs are what a plan draws on besides its scenarios.
type Inputs struct {
	Seed      int64         // every random value and scenario pick derives from it
	Setup     *config.Setup // nil: none
	Feed      *config.Feed  // nil: none
	NoCookies bool          // load.cookies: false
	// Getenv reads {{env "NAME"}} (empty counts as not set; nil: none is
	// set); Withheld the credentials templates may not read (nil: none).
	Getenv   func(string) string
	Withheld func(string) bool
	// Mask, when set, is given the value of each variable the templates
	// read, once, as the plan is compiled: before anything is sent, so
	// that the log hides it from then on. Nil: the values stay inside.
	Mask func(value string)
}

// CompileWith compiles scenarios with their setup steps, feed and
// environment. Every error it returns is a *PlanError, found before
// anything is sent.
func CompileWith(scenarios []config.Scenario, in Inputs) (_ *Plan, err error) {
	defer func() {
		if err != nil {
			err = &PlanError{Err: err}
		}
	}()
	p := &Plan{seed: in.Seed, env: map[string]string{}, noCookies: in.NoCookies}
	if in.Feed != nil {
		p.feed = newFeedRows(in.Feed)
	}
	refs := &envRefs{getenv: in.Getenv, withheld: in.Withheld, mask: in.Mask, plan: p}
	saved, err := p.compileSetup(in.Setup, refs)
	if err != nil {
		return nil, err
	}
	ids := map[string]int{}
	var total uint64
	for i := range scenarios {
		sc := &scenarios[i]
		name := cmp.Or(sc.Name, fmt.Sprintf("scenario %d", i+1))
		scope := &scope{saved: maps.Clone(saved), savedBy: "of this scenario", env: refs, feed: p.feed}
		if p.setup != [stages]*compiledScenario{} {
			scope.savedBy = "of this scenario or of setup"
		}
		cs, err := compileScenario(name, sc.Steps, scope, ids, &p.stepNames)
		if err != nil {
			return nil, err
		}
		total += uint64(max(sc.Weight, 1)) // 0: the documented default, 1
		p.scenarios = append(p.scenarios, cs)
		p.cumWeight = append(p.cumWeight, total)
	}
	p.secrets = maskForms(slices.Collect(maps.Values(p.env)))
	return p, nil
}

// PlanError is a definition that cannot run as written (or a variable it
// reads that is not set): bad input, not a failed run.
type PlanError struct{ Err error }

func (e *PlanError) Error() string { return e.Err.Error() }
func (e *PlanError) Unwrap() error { return e.Err }

// compileScenario compiles the steps of one scenario (or setup stage) in
// scope, which gains what each step saves; ids and names give each step
// its StepID (nil for setup steps, which have none).
func compileScenario(name string, steps []config.Step, sc *scope, ids map[string]int, names *[]string) (*compiledScenario, error) {
	cs := &compiledScenario{name: name}
	for j := range steps {
		st, err := compileStep(&steps[j], j, sc)
		if err != nil {
			where := fmt.Sprintf("scenario %q", name)
			if sc.inStage {
				where = sc.stage.String()
			}
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		st.id = -1
		if ids != nil {
			if _, ok := ids[st.name]; !ok {
				ids[st.name], *names = len(*names), append(*names, st.name)
			}
			st.id = ids[st.name]
		}
		for _, s := range st.save {
			sc.saved[s.name] = true
		}
		cs.steps = append(cs.steps, st)
	}
	return cs, nil
}

func compileStep(s *config.Step, index int, sc *scope) (*compiledStep, error) {
	name := cmp.Or(s.Name, fmt.Sprintf("step %d", index+1))
	where := func(part string) string { return fmt.Sprintf("step %q %s", name, part) }
	st := &compiledStep{name: name, method: cmp.Or(strings.ToUpper(s.Method), http.MethodGet), status: s.Status, expect: map[string]any{}}
	var err error
	if st.path, err = compileText(where("path"), cmp.Or(s.Path, "/"), sc); err != nil {
		return nil, err
	}
	if st.headers, err = compileHeaders(where, s.Headers, sc); err != nil {
		return nil, err
	}
	if st.body, err = compileBody(where, &s.Request, sc); err != nil {
		return nil, err
	}
	if err = st.compileExpect(where, s.Expect, sc); err != nil {
		return nil, err
	}
	for _, v := range slices.Sorted(maps.Keys(s.Save)) {
		from, path := s.Save[v].Source()
		rule := saveRule{name: v, from: from, path: path}
		if re := s.Save[v].Regex; re != "" {
			if rule.re, err = config.CompileSaveRegex(re); err != nil {
				return nil, fmt.Errorf("%s: variable %q: regex %q: %w", where("save"), v, re, err)
			}
		}
		st.save = append(st.save, rule)
	}
	return st, nil
}

// compileExpect splits expectations: headers, templated values, constants.
func (st *compiledStep) compileExpect(where func(string) string, expect map[string]any, sc *scope) (err error) {
	for _, p := range slices.Sorted(maps.Keys(expect)) {
		if hs, ok := expect[p].(map[string]any); ok && p == config.ExpectHeader {
			if st.expectHdr, err = compileHeaderExpect(where, hs); err != nil {
				return err
			}
			continue
		}
		v, ok := expect[p].(string)
		if !ok || !strings.Contains(v, "{{") {
			st.expect[p] = expect[p]
			continue
		}
		t, err := compileText(where(fmt.Sprintf("expect %q", p)), v, sc)
		if err != nil {
			return err
		}
		st.expectT = append(st.expectT, expectTemplate{path: p, value: t})
	}
	return nil
}

// compileHeaderExpect compiles expect.header: field → regexp its value matches.
func compileHeaderExpect(where func(string) string, hs map[string]any) ([]headerExpect, error) {
	var out []headerExpect
	for _, k := range slices.Sorted(maps.Keys(hs)) {
		s, _ := hs[k].(string) // config validation refused any other value
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where("expect header "+k), err)
		}
		out = append(out, headerExpect{name: http.CanonicalHeaderKey(k), re: re})
	}
	return out, nil
}

// compileHeaders compiles a step's headers, each name once (of two keys
// differing in case, the later in sorted order).
func compileHeaders(where func(string) string, hs map[string]string, sc *scope) ([]header, error) {
	var out []header
	for _, k := range slices.Sorted(maps.Keys(hs)) {
		v, err := compileText(where(fmt.Sprintf("header %q", k)), hs[k], sc)
		if err != nil {
			return nil, err
		}
		if !v.templated() {
			if err := checkHeaderValue(v.static); err != nil {
				return nil, fmt.Errorf("%s: %w", where(fmt.Sprintf("header %q", k)), err)
			}
		}
		h := header{name: http.CanonicalHeaderKey(k), value: v}
		if i := slices.IndexFunc(out, func(o header) bool { return o.name == h.name }); i >= 0 {
			out[i] = h
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// StepNames are the unique step names in order of first use; StepIDs index it.
func (p *Plan) StepNames() []string { return append([]string(nil), p.stepNames...) }

// Pick is the scenario iteration seq runs: weighted, from the seed and seq alone.
func (p *Plan) Pick(seq uint64) int {
	total := p.cumWeight[len(p.cumWeight)-1]
	i, _ := slices.BinarySearch(p.cumWeight, mix(uint64(p.seed)^0x5ca1ab1e, seq)%total+1) // the first c > x
	return i
}

// mix derives a well-spread 64-bit value from two inputs (splitmix64).
func mix(a, b uint64) uint64 {
	z := a + b*0x9e3779b97f4a7c15 + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
