package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

// newProgress is a bar per run on a terminal, one line per run elsewhere, nothing when quiet.
func newProgress(e env, cfg *config.Config, quiet bool) runner.Observer {
	if quiet || cfg == nil {
		return nil
	}
	if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && e.getenv("CI") == "" {
		return &barProgress{lineProgress: lineProgress{w: e.stderr}, window: cfg.Load.RunTime()}
	}
	p := &lineProgress{w: e.stderr}
	if e.getenv("GITHUB_ACTIONS") == "true" {
		p.actions = ci.NewRuntime(e.stderr, e.getenv) // each run a collapsible group of the log
	}
	return p
}

// lineProgress prints one line when a run starts and one when it ends; in
// GitHub Actions each run is a collapsible group of the log.
type lineProgress struct {
	w       io.Writer
	actions *ci.Runtime // nil outside GitHub Actions
	name    string
}

func (p *lineProgress) RunStarted(run, runs int, label string) {
	p.name = runName(run, runs, label)
	if p.actions != nil {
		p.actions.Group(p.name)
	}
}

// runName is "run 3 of 10", in A/B "pair 2 of at most 20 (head)" (the label names the side) or "block 2 of at most 12".
func runName(run, runs int, label string) string {
	if label == runner.BlockLabel { // the block designs report whole blocks
		return fmt.Sprintf("block %d of at most %d", run+1, runs)
	}
	if label != "" {
		return fmt.Sprintf("pair %d of at most %d (%s)", run/2+1, runs/2, label)
	}
	return fmt.Sprintf("run %d of %d", run+1, runs)
}

func (p *lineProgress) Step(int, string)            {}
func (p *lineProgress) Progress(int, load.Progress) {}

func (p *lineProgress) RunDone(run int, r *result.Run, err error) {
	if err == nil && r != nil { // a block has no run of its own: the verdict's look follows it
		fmt.Fprintf(p.w, "%s: %s\n", p.name, runLine(r))
	}
	if p.actions != nil {
		p.actions.EndGroup()
	}
}

// barProgress draws a bar over each run's warm-up and measure window.
type barProgress struct {
	lineProgress // its name and its line at the end, never in GitHub Actions
	window       time.Duration
	bar          *progressbar.ProgressBar
}

func (p *barProgress) RunStarted(run, runs int, label string) {
	p.lineProgress.RunStarted(run, runs, label)
	p.bar = progressbar.NewOptions64(p.window.Milliseconds(),
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(p.name+" preparing"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *barProgress) Step(run int, step string) {
	p.bar.Describe(fmt.Sprintf("%s %-8s", p.name, step))
}

func (p *barProgress) Progress(run int, pr load.Progress) {
	p.bar.Describe(fmt.Sprintf("%s %-8s %d done, %d failed", p.name, pr.Phase, pr.Completed, pr.Failed))
	p.bar.Set64(pr.Elapsed.Milliseconds())
}

func (p *barProgress) RunDone(run int, r *result.Run, err error) {
	p.bar.Finish()
	p.lineProgress.RunDone(run, r, err)
}

// runLine is the one-line summary of a run; a figure the run lacks (a
// load tool's file without a request count, say) reads "–", not 0.
func runLine(r *result.Run) string {
	m := r.Metrics
	figure := func(key, format string) string {
		if v, ok := m[key]; ok {
			return fmt.Sprintf(format, v)
		}
		return "–"
	}
	s := fmt.Sprintf("%s iterations/s, %s requests/s, p95 %s ms, errors %s %%", figure(result.IterationsPerSec, "%.1f"),
		figure(result.RequestsPerSec, "%.1f"), figure(result.LatencyP95, "%.2f"), figure(result.RequestErrorPct, "%.2f"))
	if d, ok := m[result.DroppedPct]; ok && d > 0 {
		s += fmt.Sprintf(", dropped %.2f %%", d)
	}
	return s
}
