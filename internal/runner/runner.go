// Package runner owns the run loop of a benchmark: start the target, then for
// each run reset the dataset, verify it, drain, warm up and measure, drain
// again; and stop the target at the end, also on Ctrl-C. In A/B mode it does
// the same for a base and a head target with their runs interleaved. It wires
// target and load together and produces result files; it judges nothing.
package runner

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
	"github.com/tailgate-ci/tailgate/internal/seal"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// Observer hears about the progress of a benchmark, from one goroutine at
// a time; label names the side in A/B mode.
type Observer interface {
	RunStarted(run, runs int, label string)
	Step(run int, step string) // "reset", "verify", "drain", "measure"
	Progress(run int, p load.Progress)
	// RunDone ends every started run: with its result, or with the error
	// that stopped it (r is then nil).
	RunDone(run int, r *result.Run, err error)
}

// Benchmark runs one benchmark definition: its runs, or in A/B mode the
// runs of its two targets.
type Benchmark struct {
	Config   *config.Config
	Env      result.Env
	Observer Observer
	Log      io.Writer        // the load tool's output (engine: command)
	Now      func() time.Time // stamps the result and its runs; nil: the wall clock

	// Environ is tailgate's environment: the children get it without
	// credentials (but those config pass_env names).
	Environ []string
	// Supervisor runs target.Supervise, under which every child is started
	// so that it dies with tailgate; empty: children are started directly.
	Supervisor []string
	Seals      map[string]*seal.Spec // by side: each A/B side's children sealed off from the other
	// TargetLogDir keeps a started target's output, one file per side;
	// TargetLive also gets it as it comes, each line prefixed "[target] ".
	TargetLogDir string
	TargetLive   io.Writer
	Sharding     Sharding // one share of a load several processes offer together
	// Getenv reads {{env "NAME"}}; Mask is given each value read as the
	// scenarios are compiled, before anything starts. Nil: none.
	Getenv func(string) string
	Mask   func(value string)
	// FreePort draws the port of a target whose URL has {{port}}; nil:
	// target.FreePort.
	FreePort func(host string) (int, error)

	mu         sync.Mutex
	logs       map[string]string // log file per side
	spent      Spent
	resetSides map[string]bool           // reset before their first start (resetBeforeFirstStart)
	epochs     map[string]*load.Sequence // by running.tree: see sequence
}

// sequence numbers the iterations on tgt's dataset from its last reset
// on, so that no two iterations that may meet in one database render the
// same {{seq}} (a unique title, e-mail or key). Each side of an A/B has
// its own, from 0 at every reset: both sides get the same numbers.
func (b *Benchmark) sequence(tgt *running) *load.Sequence {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.epochs == nil {
		b.epochs = map[string]*load.Sequence{}
	}
	s := b.epochs[tgt.tree]
	if s == nil {
		s = new(load.Sequence)
		b.epochs[tgt.tree] = s
	}
	return s
}

// Run builds and starts the target (when configured), runs every run and
// stops the target.
func (b *Benchmark) Run(ctx context.Context) (*result.File, error) {
	plan, err := b.compile()
	if err != nil {
		return nil, err
	}
	if b.Config.Target.Start != nil {
		if err := b.Build(ctx, "", ""); err != nil {
			return nil, err
		}
	}
	tgt, err := b.start(ctx, b.Config.Target, "")
	if err != nil {
		return nil, err
	}
	defer tgt.stop()
	out := b.newFile()
	out.TargetLog = tgt.logPath
	b.Sharding.record(out)
	runs := b.Config.Load.Runs
	for i := 0; i < runs; i++ {
		run, err := b.runOnce(ctx, plan, tgt, i, runs, nil)
		if err != nil {
			return nil, fmt.Errorf("run %d of %d: %w", i+1, runs, err)
		}
		out.Runs = append(out.Runs, *run)
	}
	return out, nil
}

// compile says the config's warnings and compiles the scenarios.
func (b *Benchmark) compile() (*scenario.Plan, error) {
	plan, err := b.Compile()
	if err != nil {
		return nil, err
	}
	for _, w := range b.Warnings(plan) {
		fmt.Fprintf(b.log(), "warning: %s\n", w)
	}
	return plan, nil
}

// Warnings are the config's warnings (config.Warnings), an open phase's
// workers' logins counted by plan (none without one: engine: command has
// no setup steps of tailgate's).
func (b *Benchmark) Warnings(plan *scenario.Plan) []string {
	if plan == nil {
		return b.Config.Warnings(nil)
	}
	return b.Config.Warnings(func(workers int) int { return plan.Logins(true, workers) })
}

// Compile checks that the scenarios can be run as written: templates,
// saved values, the feed and the {{env}} variables they read (which must
// be set), without sending anything; nil for a load tool's. It is what
// tailgate validate runs.
func (b *Benchmark) Compile() (*scenario.Plan, error) {
	if b.Config.Load.Engine == config.EngineCommand {
		return nil, nil
	}
	c := b.Config
	withheld := func(name string) bool { return target.IsCredential(name) && !slices.Contains(c.PassEnv, name) }
	plan, err := scenario.CompileWith(c.Scenarios, scenario.Inputs{Seed: c.Seed, Setup: c.Setup, Feed: c.Feed, NoCookies: !c.Load.CookieJar(), Getenv: b.Getenv, Withheld: withheld, Mask: b.Mask})
	if err != nil {
		return nil, fmt.Errorf("compiling scenarios: %w", err)
	}
	return plan, nil
}

func (b *Benchmark) newFile() *result.File {
	return &result.File{Schema: result.SchemaVersion, Benchmark: b.Config.Name, DefinitionHash: b.Config.DefinitionHash(), Source: "tailgate", Created: b.now(), Env: b.Env}
}

// runOnce is one sample: reset → verify → drain → warm-up + measure → drain,
// leaving out the phases skip marks.
func (b *Benchmark) runOnce(ctx context.Context, plan *scenario.Plan, tgt *running, i, runs int, skip []bool) (run *result.Run, err error) {
	obs := b.observer()
	obs.RunStarted(i, runs, tgt.label)
	defer func() { obs.RunDone(i, run, err) }()
	if err := tgt.exited(); err != nil {
		return nil, err
	}
	defer func() {
		// A run whose work mostly failed is no sample, in every mode.
		if err == nil {
			if err = tgt.exited(); err == nil {
				err = checkFailures(run, b.Config.Load.FailedPercentAllowed())
			}
		}
		if err != nil {
			run = nil
		}
	}()
	if b.Config.Load.Engine == config.EngineCommand {
		if err := b.prepare(ctx, tgt, i); err != nil {
			return nil, err
		}
		if err := b.waitForStart(ctx, i); err != nil {
			return nil, err
		}
		obs.Step(i, "measure")
		if run, err = b.measureTool(ctx, tgt, i, runs); err != nil {
			return nil, err
		}
		return run, b.drain(ctx, TimeDrain, i, tgt)
	}
	return b.measure(ctx, plan, tgt, i, skip)
}

// drain waits until each of tgts (base, head) is idle, all at once: a
// side's quiet period need not wait for the other's. Its time is stage k.
func (b *Benchmark) drain(ctx context.Context, k string, i int, tgts ...*running) error {
	d := b.Config.Drain
	if d == nil || len(tgts) == 0 {
		return nil
	}
	b.observer().Step(i, "drain")
	defer b.timed(k, time.Now())
	return both([]Side{Base, Head}[:len(tgts)], func(side Side) error {
		err := target.Drain(ctx, tgts[side].client, tgts[side].url, d)
		if err != nil && len(tgts) > 1 {
			err = fmt.Errorf("%s: %w", side, err)
		}
		return err
	})
}

// prepare resets, verifies and drains the target.
func (b *Benchmark) prepare(ctx context.Context, tgt *running, i int) error {
	if err := b.restore(ctx, tgt, i); err != nil {
		return err
	}
	began := time.Now()
	err := b.verify(ctx, tgt, i, b.observer())
	if b.timed(TimePrepare, began); err != nil {
		return err
	}
	return b.drain(ctx, TimePrepare, i, tgt)
}

// dataset is the reset and verify this process runs on tgt: none in a
// shard that does not reset.
func (b *Benchmark) dataset(tgt *running) config.Dataset {
	ds := b.Config.Dataset
	if !b.Sharding.resetsDataset() {
		return config.Dataset{}
	}
	ds.Verify = cmp.Or(tgt.verify, ds.Verify)
	return ds
}

// restore resets the target's dataset.
func (b *Benchmark) restore(ctx context.Context, tgt *running, i int) error {
	if b.Config.Dataset.Reset != nil { // a new epoch in every shard, though shard 1 alone resets: the shards' runs stay alike
		b.mu.Lock()
		delete(b.epochs, tgt.tree)
		b.mu.Unlock()
	}
	ds := b.dataset(tgt)
	if ds.Reset == nil {
		return nil
	}
	defer b.timed(TimePrepare, time.Now())
	b.observer().Step(i, "reset")
	if err := target.Reset(ctx, tgt.client, tgt.url, ds.Reset, tgt.children); err != nil {
		return err
	}
	// A reset command may restart the service or its listener (a
	// database restored under it, a container restarted): it is
	// ready again before anything is asked of it.
	if ds.Reset.Command != nil {
		if err := tgt.proc.ReadyAgain(ctx, tgt.client, tgt.url, tgt.ready); err != nil {
			if exited := tgt.exited(); exited != nil {
				return exited
			}
			return &target.StepError{Step: target.StepReset, Err: fmt.Errorf("not ready again after the reset command: %w", err)}
		}
	}
	return nil
}

// verify checks the target's dataset, where a verify is set.
func (b *Benchmark) verify(ctx context.Context, tgt *running, i int, obs Observer) error {
	if v := b.dataset(tgt).Verify; v != nil {
		obs.Step(i, "verify")
		return target.Verify(ctx, tgt.client, tgt.url, v, tgt.children)
	}
	return nil
}

func (b *Benchmark) now() time.Time {
	if b.Now == nil {
		return time.Now().UTC()
	}
	return b.Now().UTC()
}

func (b *Benchmark) observer() Observer { return cmp.Or(b.Observer, Observer(nopObserver{})) }
func (b *Benchmark) log() io.Writer     { return cmp.Or(b.Log, io.Discard) }

type nopObserver struct{}

func (nopObserver) RunStarted(int, int, string)     {}
func (nopObserver) Step(int, string)                {}
func (nopObserver) Progress(int, load.Progress)     {}
func (nopObserver) RunDone(int, *result.Run, error) {}
