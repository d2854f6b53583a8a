package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

func init() {
	register("ab", "measure a base and a head target in one job, interleaved, and judge head against base", cmdAB)
}

type abFlags struct {
	aa bool
	// twoProcesses: with aa, the head side is a second instance of the base
	// build (the demo starts one), not the same process, so the A/A noise
	// includes the difference between two processes of one build.
	twoProcesses bool
	recordBase   bool
	baseline     string
	prov         provenanceFlags
	reports      reportFlags
}

func cmdAB(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("ab", "ab -c tailgate.yml [--aa] [--record-base] [--report report.json]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	var f abFlags
	fs.BoolVar(&f.aa, "aa", false, "run the base target on both sides: show the noise this job sees and whether it would raise a false alarm")
	fs.BoolVar(&f.recordBase, "record-base", false, "also append the base side's runs to the stored baseline")
	fs.StringVar(&f.baseline, "baseline", "", "the baseline `file` whose calibrated noise is used (default: gate.baseline, else baselines/<name>.json)")
	f.prov.register(fs)
	f.reports.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	if cfg.AB == nil {
		return usageErr("%s has no ab: section naming the base and head targets (see docs/config.md)", cfg.Path)
	}
	return runAndJudgeAB(ctx, bf.output.apply(e), cfg, f, bf.quiet)
}

// runAndJudgeAB measures both sides, judges them and reports.
func runAndJudgeAB(ctx context.Context, e env, cfg *config.Config, f abFlags, quiet bool) error {
	j, err := measureAB(ctx, e, cfg, f, quiet)
	if err != nil {
		return err
	}
	if err := present(e, f.reports, j); err != nil {
		return err
	}
	if f.aa {
		return nil // an A/A run measures noise; it has nothing to fail
	}
	return verdictExit(j.verdict, f.reports.failOnInconclusive)
}

// measureAB measures both sides and judges head against base with the
// between-job noise left out of the floor (both sides share the job), on
// the pairs' differences (each pair shares the machine's moment).
func measureAB(ctx context.Context, e env, cfg *config.Config, f abFlags, quiet bool) (judged, error) {
	path := baselinePath(f.baseline, cfg, cfg.Name)
	bl, err := readBaseline(path)
	if err != nil {
		return judged{}, err
	}
	res, err := newRunner(e, cfg, quiet).RunAB(ctx, *cfg.AB, f.aa && !f.twoProcesses)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return judged{}, withCode(ExitRuntime, errors.New("interrupted: no result was written"))
		}
		return judged{}, withCode(ExitRuntime, err)
	}
	fmt.Fprintln(e.stdout, "base:")
	writeRunTable(e.stdout, res.Base)
	fmt.Fprintln(e.stdout, "\nhead:")
	writeRunTable(e.stdout, res.Head)
	fmt.Fprintln(e.stdout)
	p := policyFor(cfg, bl)
	p.SameJob = true
	p.Paired = true // every pair of the order holds one run of each side
	v := judgeRuns(res.Base, res.Head, p)
	if f.recordBase {
		if err := appendBase(e, path, bl, cfg, res.Base, f.prov); err != nil {
			return judged{}, err
		}
	}
	return judged{name: cfg.Name, mode: "ab", baselineSource: abSource(f, bl, path), verdict: v, head: res.Head, notes: abNotes(res, v, f.aa)}, nil
}

func abSource(f abFlags, bl *baseline.File, path string) string {
	s := "the base target, measured in this job"
	switch {
	case f.aa && f.twoProcesses:
		s = "a second process of the base build (A/A), measured in this job"
	case f.aa:
		s = "the base target against itself (A/A), measured in this job"
	}
	if bl != nil && bl.Calibration != nil {
		s += "; noise calibrated in " + path
	}
	return s
}

// abNotes shows the order of runs and, for an A/A run, the noise seen and
// whether the gate would have cried wolf.
func abNotes(res *runner.ABResult, v gate.Verdict, aa bool) []string {
	var order []string
	for _, s := range res.Order {
		order = append(order, map[runner.Side]string{runner.Base: "A", runner.Head: "B"}[s])
	}
	notes := []string{"order of runs (A = base, B = head): " + strings.Join(order, " ")}
	if !aa {
		return notes
	}
	for _, key := range []string{result.IterationsPerSec, result.RequestsPerSec, result.LatencyP95, result.CPUPerIteration} {
		a, b := values(res.Base.Runs, key), values(res.Head.Runs, key)
		if len(a) > 1 && len(b) > 1 {
			notes = append(notes, fmt.Sprintf("A/A noise of %s: run-to-run CV %.1f %% and %.1f %%, medians differ by %+.1f %%", key, 100*cv(a), 100*cv(b), 100*(stats.Median(b)/stats.Median(a)-1)))
		}
	}
	if v.Outcome == gate.Regression {
		notes = append(notes, fmt.Sprintf("A/A: this would have been a FALSE ALARM (%v): widen the floors or calibrate", v.Regressions))
	} else {
		notes = append(notes, "A/A: no false alarm")
	}
	return notes
}

// appendBase records the base side's runs in the stored baseline.
func appendBase(e env, path string, bl *baseline.File, cfg *config.Config, base *result.File, prov provenanceFlags) error {
	if bl == nil {
		bl = baseline.New(cfg.Name, base.DefinitionHash, base.Env, cfg.Gate.Window)
	}
	bl.Append(base, prov.provenance(e.getenv, base.Created))
	if err := baseline.Write(path, bl); err != nil {
		return withCode(ExitRuntime, err)
	}
	fmt.Fprintf(e.stdout, "appended %d base runs to %s\n", len(base.Runs), path)
	return nil
}
