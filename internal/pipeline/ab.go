package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/stats"
	"github.com/tailgate-ci/tailgate/internal/worktree"
)

// ABOptions are the options of AB.
type ABOptions struct {
	// Config is the benchmark; its ab: section names the two builds and
	// the budget. Without one every ab key takes its default.
	Config *config.Config
	// BaseRef, when set, is the base's git ref given to the job (BaseFrom
	// names by whom): it replaces ab.base.ref in every front end, and the
	// report says so, or that a base of its own without ref left it unused.
	BaseRef, BaseFrom string
	// Git reaches the repository for a build from a ref.
	Git baseline.Git
	// Dir is the working tree: the head's source (unless ab.head.ref
	// names another) and the repository a ref is checked out from; ""
	// for the current directory.
	Dir string
	// Policy, when set, is the gate section and the A/B budget to judge
	// by instead of Config's (TrustBase); its notes go into the
	// report.
	Policy *Policy
	// AA runs the base build on both sides: the noise this job sees, and
	// whether the gate would cry wolf on it.
	AA bool
	// TwoProcesses: with AA and ab.restart: never, the head side is a
	// second process of the base build (the demo starts one), not the
	// same process, so that the A/A noise includes what two processes of
	// one build differ by. (Restarted every pair, each run has its own
	// process anyway.)
	TwoProcesses bool
	// ResultPath, when set, receives the head side's runs as soon as they
	// are measured (the base side's are the comparison's, not the result).
	ResultPath string
	// NoisePath, when set, is the noise file (ab.noise when empty): the
	// spread of earlier jobs' units is read from it and pooled where it
	// agrees with this job's, and this job's is added to it at the end.
	NoisePath string
	// WholeRuns, when set, says why the job must measure pairs of whole
	// runs instead of blocks (tailgate ab --record-base: a stored baseline
	// holds whole runs of one side alone).
	WholeRuns string
	// NoiseDefault is the noise file a job keeps when neither NoisePath nor
	// ab.noise names one (the user's cache, cli.DefaultNoisePath); "" keeps
	// none. ab.noise "off" keeps none either way.
	NoiseDefault string
}

// AB measures a base and a head build in one job, unit after unit (blocks
// of short windows, each phase loading both sides at once or alternating
// by one rule (runner.Shape), or where blocks cannot run pairs of whole runs),
// and judges head against base on the units' differences after every unit
// (gate.JudgeSequential) until the verdict is clear or the budget
// (ab.max_blocks, ab.max_time) is spent. A side built from a git ref is
// checked out in a temporary worktree, built and started there; the
// worktree is removed at the end, also on failure and cancellation.
//
// No stored baseline is read: the sequential verdict judges the units
// against min_effect and uses no calibrated noise (only the noise file of
// earlier A/B jobs, ABOptions.NoisePath), so a baseline file could only make
// the job fail (unreadable) without changing its verdict.
func AB(ctx context.Context, env Env, o ABOptions) (Judged, error) {
	// The benchmark is the policy's (on a pull request the base commit's,
	// for both sides), else the config's with the policy's runs and
	// credentials; the pairs' budget is the policy's (o.ab).
	cfg := o.Policy.benchmark(o.Config)
	o.Config = cfg
	ab, err := o.ab()
	if err != nil {
		return Judged{}, err
	}
	b := env.benchmark(cfg)
	storedNoise, err := readNoise(o.noisePath(ab)) // before any of the PR's code runs
	if err != nil {
		return Judged{}, err
	}
	trees, err := prepareTrees(ctx, env, o, ab)
	defer trees.remove(ctx, env)
	if err != nil {
		return Judged{}, err
	}
	sealed, err := sealSides(ctx, env, o, ab, cfg, trees)
	if err != nil {
		return Judged{}, err
	}
	defer sealed.remove(env)
	b.Seals = sealed.specs
	if err := trees.build(ctx, b, cfg); err != nil {
		return Judged{}, runFailure(o.Policy.sideFailure(err))
	}
	p := policyFor(cfg, o.Policy, nil)
	p.AllowMissing = ab.AllowMissing
	plan := b.Resolve(trees.plan(cfg, ab, o))
	noise := openNoise(o.noisePath(ab), storedNoise, cfg, b.Env, plan)
	var last gate.Verdict
	phases := cfg.Load.RunPhases()
	if plan.Shape.Blocks() && len(phases) > 1 && ab.Phases != config.PhasesAll {
		plan.SkipPhase = func(name string) bool { return phaseDecided(last, phases, name) }
	}
	plan.Look = sequentialLook(env, p, ab, noise, &last)
	plan.Gated = func(key string) bool { return gatedIn(last, key) }
	res, err := b.RunAB(ctx, plan)
	if err != nil {
		return Judged{}, runFailure(o.Policy.sideFailure(err))
	}
	if err := noise.keep(last, trees.headCommit()); err != nil {
		fmt.Fprintf(env.log(), "warning: %v\n", err)
	}
	if err := writeResult(o.ResultPath, res.Head); err != nil {
		return Judged{}, err
	}
	fmt.Fprintf(env.log(), "A/B stopped after %d %s in %s: %s\n", res.Units(), plural.Of(res.Units(), "block", "blocks"), res.Elapsed.Round(100*time.Millisecond), stopReason(res, ab, last))
	fmt.Fprintln(env.out(), "base:")
	showRuns(env, res.Base)
	fmt.Fprintln(env.out(), "head:")
	showRuns(env, res.Head)
	run := abRun(res, plan, ab, phases, o.AA)
	notes := append(append(append(append(o.Policy.notes(), o.baseNote()...), trees.notes(o.Policy)...), sealed.notes(o.Policy.fromBase())...), noise.notes(last)...)
	in := report.Input{Name: cfg.Name, Mode: "ab", BaselineSource: o.source(trees), Verdict: last, Head: res.Head.Runs,
		Base: res.Base.Runs, Notes: notes, AB: run,
		TargetLog: report.TargetLogs{Base: res.Base.TargetLog, Head: res.Head.TargetLog}}
	j := Judged{Input: in, Head: res.Head, Base: res.Base}
	if tr := trees.side[runner.Base]; tr != nil {
		j.BaseCommit = tr.Commit
	}
	return j, nil
}

// sequentialLook judges the units so far after each one, into *last, and
// says whether the job may stop. A budget the runner planned from
// ab.max_time replaces ab.max_blocks (a job not planned ends for time with
// a final look, which spends the level left).
func sequentialLook(env Env, p gate.Policy, ab config.AB, noise *abNoise, last *gate.Verdict) func(*runner.ABResult, bool) bool {
	design := stats.SeqDesign{MinPairs: ab.MinPairs, MaxPairs: ab.MaxPairs}
	return func(res *runner.ABResult, final bool) bool {
		if res.Planned > 0 {
			design.MaxPairs = res.Planned
		}
		*last = gate.JudgeSequential(res.Base.Runs, res.Head.Runs, p, design, final,
			gate.SeqOptions{Windows: res.Windows, Prior: noise.stored(), Budget: res.Fits})
		fmt.Fprintf(env.log(), "after block %d of at most %d: %s\n", res.Units(), design.MaxPairs, sequentialReason(*last))
		return last.Sequential != nil && last.Sequential.Done
	}
}

// abRun is how the job ran, as the facts the report words: its one plan
// and what the runner measured.
func abRun(res *runner.ABResult, plan runner.ABPlan, ab config.AB, phases []config.PhaseLoad, aa bool) *report.ABRun {
	r := &report.ABRun{Blocks: res.Units(), MaxBlocks: ab.MaxPairs, Elapsed: res.Elapsed, WholeRuns: plan.Shape.WholeRuns,
		Windows: plan.Shape.Windows, Window: plan.Shape.Window, Alternate: plan.Shape.Alternate, RandomOrder: ab.Order == config.OrderRandom,
		Restarted: plan.Restart, Starts: res.Starts, StartTime: res.StartTime, Spent: res.Spent.String(), Warmups: res.Warmups, AA: aa}
	if res.Planned > 0 {
		r.Planned, r.MaxTime, r.FirstBlock = res.Planned, ab.MaxTime.String(), res.FirstUnit
	}
	if !plan.Shape.Blocks() {
		for _, s := range res.Order {
			r.Order = append(r.Order, s == runner.Base)
		}
		return r
	}
	for _, ph := range phases {
		p := report.ABPhase{Name: ph.Name, AtOnce: plan.Shape.AtOnce(ph)}
		for _, d := range res.Duets {
			if d.Phase == ph.Name {
				p.AtOnce, p.Duet = d.AtOnce, &d
			}
		}
		r.Phases = append(r.Phases, p)
	}
	return r
}

// ab is the config's ab section, or the defaults, with the base ref filled
// in when the config names no base.
func (o ABOptions) ab() (config.AB, error) {
	ab := config.DefaultAB()
	if o.Config.AB != nil {
		ab = o.Config.AB
	}
	out := *ab
	if b := o.Policy.budget(); b != nil {
		b.apply(&out)
	}
	if o.BaseRef != "" && (out.Base.Ref != "" || !out.Base.HasTarget()) {
		out.Base.Ref = o.BaseRef
	}
	if out.Base.IsEmpty() {
		return out, Usage.Errorf("%s names no base build for A/B: set ab.base.ref (a git ref, e.g. origin/main) or ab.base.url, or give --base-ref (see docs/config.md#ab)", o.Config.Path)
	}
	if (out.Base.Ref != "" || out.Head.Ref != "") && o.Git == nil {
		return out, Usage.Errorf("a build from a git ref needs git, and none was given")
	}
	for _, s := range []config.ABSide{out.Base, out.Head} {
		if s.Ref != "" && s.TargetOr(o.Config.Target).Start == nil {
			return out, Usage.Errorf("%s: a build from ref %s needs target.start: the command that starts it in its worktree", o.Config.Path, s.Ref)
		}
	}
	return out, nil
}

// baseNote says when the ref given to the job replaced ab.base.ref, or was
// not used at all.
func (o ABOptions) baseNote() []string {
	ab, from := o.Config.AB, cmp.Or(o.BaseFrom, "the base ref given to the job")
	switch {
	case o.BaseRef == "" || ab == nil:
	case o.BaseFrom == "" && o.Policy != nil && o.Policy.Commit == o.BaseRef:
		// the file's own ref, pinned to the commit it named
	case ab.Base.Ref != "" && ab.Base.Ref != o.BaseRef:
		return []string{fmt.Sprintf("ab.base.ref %q of the benchmark file is not used: the base is %s (%s), which replaces it", ab.Base.Ref, from, short(o.BaseRef))}
	case ab.Base.Ref == "" && ab.Base.HasTarget():
		return []string{fmt.Sprintf("%s (%s) is not used: ab.base is a target of its own (%s) that names no ref to replace", from, short(o.BaseRef), ab.Base.URL)}
	}
	return nil
}

// gatedIn reports whether a look gated metric key (so far as it knows:
// before the first look, every metric may be).
func gatedIn(v gate.Verdict, key string) bool {
	for _, f := range v.Findings {
		if f.Key == key {
			return f.Gated
		}
	}
	return len(v.Findings) == 0
}

// phaseDecided reports whether a look has decided every gated metric
// taken from the phase called name (result.SourcePhases), so that later
// blocks can leave it out: the metrics keep their decisions, and the
// time goes to the undecided ones. Before the first look nothing has.
func phaseDecided(v gate.Verdict, phases []config.PhaseLoad, name string) bool {
	if v.Sequential == nil || v.Sequential.Pairs < v.Sequential.MinPairs {
		return false
	}
	models := make([]string, len(phases))
	at := -1
	for i, ph := range phases {
		models[i] = ph.Load.Model
		if ph.Name == name {
			at = i
		}
	}
	if at < 0 {
		return false
	}
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == gate.Undecided && slices.Contains(result.SourcePhases(models, f.Key), at) {
			return false
		}
	}
	return true
}

// sequentialReason says what the last look decided.
func sequentialReason(v gate.Verdict) string {
	if v.Sequential == nil {
		return string(v.Outcome)
	}
	if v.Sequential.Done {
		return fmt.Sprintf("%s (%s)", v.Outcome, v.Sequential.Reason)
	}
	return "continuing (" + v.Sequential.Reason + ")"
}

// stopReason says why the job ended.
func stopReason(res *runner.ABResult, ab config.AB, v gate.Verdict) string {
	switch res.Budget {
	case "time":
		return fmt.Sprintf("the time budget ab.max_time (%s) left no room for another %s; %s", ab.MaxTime, v.Sequential.UnitWord(1), sequentialReason(v))
	case "pairs":
		return fmt.Sprintf("the budget of %d %s is spent; %s", ab.MaxPairs, v.Sequential.UnitWord(ab.MaxPairs), sequentialReason(v))
	}
	return "the verdict is clear: " + sequentialReason(v)
}

// source says what the head was judged against.
func (o ABOptions) source(t *trees) string {
	s := "the base build, measured in this job"
	switch {
	case o.AA && o.TwoProcesses:
		s = "a second process of the base build (A/A), measured in this job"
	case o.AA:
		s = "the base build against itself (A/A), measured in this job"
	}
	if tr := t.side[runner.Base]; tr != nil {
		s += fmt.Sprintf(" (%s at %s)", tr.Ref, short(tr.Commit))
	}
	return s
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// trees are the source trees of an A/B job's two sides: a worktree for a
// side built from a ref, the working directory ("") otherwise.
type trees struct {
	side map[runner.Side]*worktree.Tree
	ab   config.AB
	aa   bool
	work string // the working tree
}

// prepareTrees checks out every side built from a ref. The trees made so
// far are returned also with an error, for removal.
func prepareTrees(ctx context.Context, env Env, o ABOptions, ab config.AB) (*trees, error) {
	t := &trees{side: map[runner.Side]*worktree.Tree{}, ab: ab, aa: o.AA, work: cmp.Or(o.Dir, ".")}
	for _, s := range t.sides() {
		ref := t.sideConfig(s).Ref
		if ref == "" {
			continue
		}
		tr, err := worktree.Add(ctx, o.Git, t.work, ref, env.TempDir)
		if err != nil {
			return t, Runtime.Wrap(fmt.Errorf("%s build: %w", s, err))
		}
		fmt.Fprintf(env.log(), "%s: %s at %s, checked out in %s\n", s, ref, short(tr.Commit), tr.Root())
		t.side[s] = tr
	}
	return t, nil
}

// sides are the sides that need a tree of their own: the base's alone in
// an A/A job.
func (t *trees) sides() []runner.Side {
	if t.aa {
		return []runner.Side{runner.Base}
	}
	return []runner.Side{runner.Base, runner.Head}
}

func (t *trees) sideConfig(s runner.Side) config.ABSide {
	if s == runner.Base {
		return t.ab.Base
	}
	return t.ab.Head
}

// dir is side s's source tree: its worktree, or the working tree.
func (t *trees) dir(s runner.Side) string {
	if tr := t.side[s]; tr != nil {
		return tr.Dir
	}
	return t.work
}

// build runs the config's build command in every tree whose side
// tailgate starts, the working directory once.
func (t *trees) build(ctx context.Context, b *runner.Benchmark, cfg *config.Config) error {
	if cfg.Build == nil {
		return nil
	}
	built := map[string]bool{}
	for _, s := range t.sides() {
		dir := t.dir(s)
		if built[dir] || t.sideConfig(s).TargetOr(cfg.Target).Start == nil {
			continue
		}
		built[dir] = true
		if err := b.Build(ctx, dir, s.String()); err != nil {
			return err
		}
	}
	return nil
}

// plan is how the runner runs the job: both targets as started from their
// trees, and the budget.
func (t *trees) plan(cfg *config.Config, ab config.AB, o ABOptions) runner.ABPlan {
	base := ab.Base.TargetOr(cfg.Target).InTree(t.dir(runner.Base))
	head := ab.Head.TargetOr(cfg.Target).InTree(t.dir(runner.Head))
	plan := runner.ABPlan{Base: base, Head: head, AA: o.AA, Order: ab.Order, MaxPairs: ab.MaxPairs, MinPairs: ab.MinPairs,
		MaxTime: ab.MaxTime.D(), Restart: ab.Restart == config.RestartEveryPair,
		Shape: runner.Shape{WholeRuns: o.WholeRuns, Windows: ab.Windows, Window: ab.Window.D(), WindowWarmup: ab.WindowWarmup.D()}}
	if o.AA && o.TwoProcesses {
		plan.AA, plan.Head = false, base // a second process of the base build
	}
	return plan
}

// ABShape is the shape an A/B job of cfg with the section ab takes before
// it watches the machine, by the rule the job applies (runner.Resolve):
// what validate says.
func ABShape(cfg *config.Config, ab config.AB) runner.Shape {
	t := &trees{ab: ab, work: "."}
	return (&runner.Benchmark{Config: cfg}).Resolve(t.plan(cfg, ab, ABOptions{})).Shape
}

// headCommit is the commit of the head's worktree, "" for the working tree.
func (t *trees) headCommit() string {
	if tr := t.side[runner.Head]; tr != nil {
		return tr.Commit
	}
	return ""
}

// notes say where each side came from: which commit a worktree holds,
// or which target of its own the side ran on, and whose build and start
// commands made it.
func (t *trees) notes(pol *Policy) []string {
	whose := "the benchmark file's"
	switch {
	case pol.fromBase():
		whose = "the base commit's"
	case pol != nil:
		whose = "the pull request's (benchmark_from: head)"
	}
	var out []string
	for _, s := range t.sides() {
		side := t.sideConfig(s)
		tr := t.side[s]
		switch {
		case tr != nil && side.HasTarget():
			out = append(out, fmt.Sprintf("%s: %s at %s, checked out in a temporary worktree, built there with %s build and started with its own target (ab.%s: %s)",
				s, tr.Ref, short(tr.Commit), whose, s, side.URL))
		case tr != nil:
			out = append(out, fmt.Sprintf("%s: built from %s at %s in a temporary worktree, with %s build and target", s, tr.Ref, short(tr.Commit), whose))
		case side.HasTarget() && side.Start != nil:
			out = append(out, fmt.Sprintf("%s: not a build of a commit: the target of ab.%s (%s), started by %s command in the working tree", s, s, side.URL, whose))
		case side.HasTarget():
			out = append(out, fmt.Sprintf("%s: not a build of a commit: the target of ab.%s (%s), started elsewhere", s, s, side.URL))
		}
	}
	return out
}

// remove removes every worktree, on a context of its own so that it runs
// after Ctrl-C too; a failure is a notice, never the job's error.
func (t *trees) remove(ctx context.Context, env Env) {
	if t == nil {
		return
	}
	var errs []error
	for _, tr := range t.side {
		errs = append(errs, tr.Remove(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(env.log(), "warning: %v\n", err)
	}
}
