package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/stats"
	"github.com/tailgate-ci/tailgate/internal/worktree"
)

type ABOptions struct {
	Config *config.Config // its ab section (else the defaults) names the builds and the budget
	// BaseRef replaces ab.base.ref (BaseFrom names who gave it), and the
	// report says so, or that a base of its own without ref left it unused.
	BaseRef, BaseFrom string
	Git               baseline.Git
	Dir               string  // the head's source (unless ab.head.ref) and the repository refs come from
	Policy            *Policy // the gate and A/B budget to judge by instead of Config's (TrustBase)
	// AA runs the base build on both sides; with TwoProcesses and
	// ab.restart: never, the head side is a second process of it, so that
	// the A/A noise includes what two processes of one build differ by.
	AA, TwoProcesses bool
	ResultPath       string // receives the head side's runs
	// NoisePath is the noise file (else ab.noise, else NoiseDefault; "off"
	// keeps none): earlier jobs' spread is pooled where it agrees with this
	// job's.
	NoisePath, NoiseDefault string
	// WholeRuns says why the job must measure whole runs (--record-base: a
	// stored baseline holds whole runs of one side alone).
	WholeRuns result.Apart
}

// AB measures a base and a head build in one job, block after block, and
// judges head against base after every block until the verdict is clear
// or the budget is spent; a side built from a git ref is checked out in a
// temporary worktree, removed at the end. No stored baseline is read: it
// could only fail the job, never change the verdict.
func AB(ctx context.Context, env Env, o ABOptions) (Judged, error) {
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
	if len(phases) > 1 && ab.Phases != config.PhasesAll {
		plan.SkipPhase = func(name string) bool { return phaseDecided(last, phases, name) }
	}
	plan.Look = sequentialLook(env, p, ab, noise, &last)
	plan.Gated = p.Gates
	res, err := b.RunAB(ctx, plan)
	if err != nil {
		return Judged{}, runFailure(o.Policy.sideFailure(err))
	}
	plan.Shape = res.Shape // with the window the first block chose
	if err := noise.keep(last, trees.commit(runner.Head)); err != nil {
		fmt.Fprintf(env.log(), "warning: %v\n", err)
	}
	if err := writeResult(o.ResultPath, res.Head); err != nil {
		return Judged{}, err
	}
	fmt.Fprintln(env.log(), report.ABStopped(report.ABStop{Blocks: res.Units(), MaxBlocks: ab.MaxBlocks, Elapsed: res.Elapsed, MaxTime: ab.MaxTime.D(), Budget: string(res.Budget)}, last))
	showRuns(env, "base:", res.Base)
	showRuns(env, "head:", res.Head)
	notes := append(append(append(append(o.Policy.notes(), o.baseNote()...), trees.notes(o.Policy)...), sealed.Notes(o.Policy.fromBase())...), noise.notes(last)...)
	in := report.Input{Name: cfg.Name, Mode: "ab", BaselineSource: o.source(trees), Verdict: last, Head: res.Head.Runs,
		Base: res.Base.Runs, Notes: notes, AB: abRun(res, plan, ab, phases, o.AA),
		TargetLog: report.TargetLogs{Base: res.Base.TargetLog, Head: res.Head.TargetLog}}
	return Judged{Input: in, Head: res.Head, Base: res.Base, BaseCommit: trees.commit(runner.Base)}, nil
}

// sequentialLook judges the blocks so far into *last and says whether the
// job may stop, over the blocks the runner's budget allows (a job not
// planned ends for time with a final look, which spends the level left).
func sequentialLook(env Env, p gate.Policy, ab config.AB, noise *abNoise, last *gate.Verdict) func(*runner.ABResult, bool) bool {
	return func(res *runner.ABResult, final bool) bool {
		design := stats.SeqDesign{MinBlocks: ab.MinBlocks, MaxBlocks: res.MaxUnits}
		*last = gate.JudgeSequential(res.Base.Runs, res.Head.Runs, p, design, final,
			gate.SeqOptions{Windows: res.Windows, Prior: noise.stored(), Budget: res.Fits})
		fmt.Fprintln(env.log(), report.ABLook(res.Units(), design.MaxBlocks, *last))
		return last.Sequential != nil && last.Sequential.Done
	}
}

// abRun is how the job ran, as the facts the report words.
func abRun(res *runner.ABResult, plan runner.ABPlan, ab config.AB, phases []config.PhaseLoad, aa bool) *report.ABRun {
	r := &report.ABRun{Blocks: res.Units(), MaxBlocks: ab.MaxBlocks, Elapsed: res.Elapsed, WholeRuns: plan.Shape.WholeRuns,
		Windows: plan.Shape.Windows, Fills: plan.Shape.Fills, Window: plan.Shape.Window, Lifecycle: plan.Shape.Lifecycle, RaisedFor: plan.Shape.RaisedFor, Chosen: plan.Shape.Chosen, Alternate: plan.Shape.Alternate, RandomOrder: ab.Order == config.OrderRandom,
		Restarted: plan.Restart, Starts: res.Starts, StartTime: res.StartTime, Spent: report.Spent(res.Spent, runner.SpentOrder), Warmups: res.Warmups, AA: aa}
	if res.Planned > 0 {
		r.Planned, r.MaxTime, r.Pace = res.Planned, ab.MaxTime.String(), res.PlanPace
	}
	for _, s := range res.Order {
		r.Order = append(r.Order, s == runner.Base)
	}
	for _, ph := range phases {
		p := report.ABPhase{Name: ph.Name, AtOnce: plan.Shape.AtOnce(ph)}
		if ph.Load.Model == config.ModelClosed {
			p.VUs = ph.Load.VUs
		}
		for _, d := range res.Duets {
			if d.Phase == ph.Name {
				p.AtOnce, p.Duet = d.AtOnce, &d
			}
		}
		r.Phases = append(r.Phases, p)
	}
	return r
}

// ab is the config's ab section, or the defaults, with the policy's
// budget and the base ref given.
func (o ABOptions) ab() (config.AB, error) {
	out := *cmp.Or(o.Config.AB, config.DefaultAB())
	if p := o.Policy; p != nil && p.Budget != nil {
		out.MinBlocks, out.MaxBlocks, out.MaxTime, out.AllowMissing = p.Budget.MinBlocks, p.Budget.MaxBlocks, p.Budget.MaxTime, p.Budget.AllowMissing
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

func (o ABOptions) baseNote() []string {
	ab := o.Config.AB
	if ab == nil || o.BaseFrom == "" && o.Policy != nil && o.Policy.Commit == o.BaseRef {
		return nil // the file's own ref, pinned to the commit it named
	}
	return report.BaseRef(o.BaseRef, cmp.Or(o.BaseFrom, "the base ref given to the job"), ab.Base.Ref, ab.Base.HasTarget(), ab.Base.URL)
}

// phaseDecided reports whether a look has decided every gated metric
// taken from the phase called name (result.SourcePhases), so that later
// blocks can leave it out.
func phaseDecided(v gate.Verdict, phases []config.PhaseLoad, name string) bool {
	if v.Sequential == nil || v.Sequential.Blocks < v.Sequential.MinBlocks {
		return false
	}
	at := slices.IndexFunc(phases, func(ph config.PhaseLoad) bool { return ph.Name == name })
	if at < 0 {
		return false
	}
	models := make([]string, len(phases))
	for i, ph := range phases {
		models[i] = ph.Load.Model
	}
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == gate.Undecided && slices.Contains(result.SourcePhases(models, f.Key), at) {
			return false
		}
	}
	return true
}

func (o ABOptions) source(t *trees) string {
	var ref, commit string
	if tr := t.side[runner.Base]; tr != nil {
		ref, commit = tr.Ref, tr.Commit
	}
	return report.ABBaseline(o.AA, o.TwoProcesses, ref, commit)
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

// trees are the source trees of an A/B job's two sides: a worktree for a
// side built from a ref, the working tree otherwise.
type trees struct {
	side map[runner.Side]*worktree.Tree
	ab   config.AB
	aa   bool
	work string
}

// prepareTrees checks out every side built from a ref; the trees made so
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

func (t *trees) sides() []runner.Side {
	if t.aa {
		return []runner.Side{runner.Base}
	}
	return []runner.Side{runner.Base, runner.Head}
}

func (t *trees) sideConfig(s runner.Side) config.ABSide {
	return [2]config.ABSide{t.ab.Base, t.ab.Head}[s]
}

func (t *trees) dir(s runner.Side) string {
	if tr := t.side[s]; tr != nil {
		return tr.Dir
	}
	return t.work
}

// build runs the build command once in every tree whose side tailgate
// starts.
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

func (t *trees) plan(cfg *config.Config, ab config.AB, o ABOptions) runner.ABPlan {
	base := ab.Base.TargetOr(cfg.Target).InTree(t.dir(runner.Base))
	head := ab.Head.TargetOr(cfg.Target).InTree(t.dir(runner.Head))
	plan := runner.ABPlan{Base: base, Head: head, AA: o.AA, Order: ab.Order, MaxBlocks: ab.MaxBlocks, MinBlocks: ab.MinBlocks,
		MaxTime: ab.MaxTime.D(), Restart: ab.Restart == config.RestartEveryPair,
		Shape: runner.Shape{WholeRuns: o.WholeRuns, Windows: ab.Windows, Window: ab.Window.D(), WindowWarmup: ab.WindowWarmup.D()}}
	if o.AA && o.TwoProcesses {
		plan.AA, plan.Head = false, base // a second process of the base build
	}
	return plan
}

// ABShape is the shape an A/B job of cfg takes before it watches the
// machine (runner.Resolve): what validate says.
func ABShape(cfg *config.Config, ab config.AB) runner.Shape {
	t := &trees{ab: ab, work: "."}
	return (&runner.Benchmark{Config: cfg}).Resolve(t.plan(cfg, ab, ABOptions{})).Shape
}

func (t *trees) commit(s runner.Side) string {
	if tr := t.side[s]; tr != nil {
		return tr.Commit
	}
	return ""
}

// notes say where each side came from and whose commands made it.
func (t *trees) notes(pol *Policy) []string {
	whose := report.ProcedureFile
	switch {
	case pol.fromBase():
		whose = report.ProcedureBase
	case pol != nil:
		whose = report.ProcedureHead
	}
	var sides []report.ABSide
	for _, s := range t.sides() {
		c := t.sideConfig(s)
		side := report.ABSide{Side: s.String(), URL: c.URL, Own: c.HasTarget(), Started: c.Start != nil}
		if tr := t.side[s]; tr != nil {
			side.Ref, side.Commit = tr.Ref, tr.Commit
		}
		sides = append(sides, side)
	}
	return report.SideNotes(whose, sides)
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
