package gate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// HistoryJob is one recorded job of main's history, oldest first, as the
// history analysis reads it.
type HistoryJob struct {
	Commit, Ref, Job string
	Time             time.Time
	// Machine is the environment fingerprint, Runner the CI's machine
	// image ("" when unknown), Tool the Go and tailgate versions that
	// measured; Definition is the benchmark definition's hash.
	Machine, Runner, Tool, Definition string
	Runs                              []result.Run
}

// HistoryPolicy is how a history is analysed.
type HistoryPolicy struct {
	// Alpha is the false-alarm rate of the whole analysis, split evenly
	// over the gated metrics; 0 means DefaultAlpha.
	Alpha float64
	// Metrics are the gated metric keys; empty means DefaultMetrics.
	Metrics []string
	// MinEffect is gate.min_effect: no step smaller is a change point.
	MinEffect map[string]float64
	// Seed makes the permutation tests and bootstraps repeatable.
	Seed uint64
}

// HistoryMetric is one gated metric over the history.
type HistoryMetric struct {
	Meta result.Metric
	// Jobs are the indexes (into the history) of the jobs that measured
	// the metric, Values their medians and Runs their run values.
	Jobs   []int
	Values []float64
	Runs   [][]float64
	// Floor is the smallest step counted, in percent (points for rates).
	Floor float64
	// Alpha is the level of each of this metric's permutation tests.
	Alpha   float64
	Changes []HistoryChange
	// Note says why the metric was not analysed, when it was not.
	Note string
}

// HistoryChange is one shift of a metric's level.
type HistoryChange struct {
	// At is the history index of the first job at the new level (the
	// best estimate); First…Last the jobs it may be (indexes into the
	// history, inclusive): the change came with one of the commits after
	// job First−1 up to job Last.
	At, First, Last int
	// Before and After are the medians of the levels; Change, Lo and Hi
	// the step and its bounds in percent (points for rates), signed as
	// the values move.
	Before, After, Change, Lo, Hi float64
	P                             float64
	// Worse: the step is in the metric's bad direction.
	Worse bool
	// Environment lists what changed in the range besides the code: the
	// machine, the runner image, the benchmark definition (these make the
	// step the environment's) and the measuring tool's versions.
	Environment []string
	// ByEnvironment: the machine, runner image or definition changed in
	// the range, so the step need not be the code's.
	ByEnvironment bool
}

// Regression reports whether the change is a regression of the code: worse,
// and with no change of machine, runner or definition in its range.
func (c HistoryChange) Regression() bool { return c.Worse && !c.ByEnvironment }

// HistoryVerdict is the analysis of a history.
type HistoryVerdict struct {
	Jobs    int
	Metrics []HistoryMetric
}

// Current lists the metrics whose latest change point is a regression:
// main sits at a worse level than before it.
func (v HistoryVerdict) Current() []HistoryMetric {
	var out []HistoryMetric
	for _, m := range v.Metrics {
		if n := len(m.Changes); n > 0 && m.Changes[n-1].Regression() {
			out = append(out, m)
		}
	}
	return out
}

// AnalyzeHistory finds the change points of every gated metric the history
// measured. A job's value is the median of its runs (its runs share its
// drift and are not independent samples of main); steps below the floor
// (gate.min_effect, at least MinCalibratedFloorPercent or
// MinCalibratedFloorPoints) are merged away, and each test runs at
// Alpha/K for K analysed metrics, so that a history without any change
// gets a change point with probability at most Alpha.
func AnalyzeHistory(jobs []HistoryJob, p HistoryPolicy) (HistoryVerdict, error) {
	v := HistoryVerdict{Jobs: len(jobs)}
	for _, key := range historyMetrics(jobs, p) {
		m, _ := result.Lookup(key)
		v.Metrics = append(v.Metrics, seriesOf(jobs, m, historyFloor(m, p)))
	}
	analysed := 0
	for _, m := range v.Metrics {
		if m.enough() {
			analysed++
		}
	}
	alpha := Policy{Alpha: p.Alpha}.alpha() / float64(max(analysed, 1))
	for i := range v.Metrics {
		if err := findChanges(&v.Metrics[i], jobs, alpha, p.Seed+uint64(i)); err != nil {
			return HistoryVerdict{}, err
		}
	}
	return v, nil
}

// historyMetrics are the gated metrics some job measured, in catalogue
// order, less those the load sets (never gated).
func historyMetrics(jobs []HistoryJob, p HistoryPolicy) []string {
	var all []result.Run
	for _, j := range jobs {
		all = append(all, j.Runs...)
	}
	fixed := setByLoad(all, nil)
	wanted := map[string]bool{}
	for _, key := range (Policy{Metrics: p.Metrics}).metrics() {
		wanted[key] = true
	}
	var out []string
	for _, m := range result.Metrics {
		if wanted[m.Key] && !fixed[m.Key] && hasKey(all, m.Key) {
			out = append(out, m.Key)
		}
	}
	return out
}

// historyFloor is the smallest step counted: gate.min_effect, and never
// below the least calibrated floor. The check's stored-baseline floors do
// not apply: they bound what 5 runs against a window can tell from one
// job's drift, while a change point compares levels of many jobs and its
// permutation test measures their spread itself.
func historyFloor(m result.Metric, p HistoryPolicy) float64 {
	least := MinCalibratedFloorPercent
	if m.Scale == result.Percent {
		least = MinCalibratedFloorPoints
	}
	return math.Max(least, p.MinEffect[m.Key])
}

// enough: the metric has the jobs to hold two levels.
func (hm HistoryMetric) enough() bool { return len(hm.Values) >= 2*stats.DefaultMinSegment }

// seriesOf collects metric m's values job by job.
func seriesOf(jobs []HistoryJob, m result.Metric, floor float64) HistoryMetric {
	hm := HistoryMetric{Meta: m, Floor: floor}
	skipped := 0
	for i, j := range jobs {
		var runs []float64
		for _, r := range j.Runs {
			if v, ok := r.Metrics[m.Key]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				runs = append(runs, v)
			}
		}
		if len(runs) == 0 {
			continue
		}
		med := stats.Median(runs)
		if m.Scale == result.Ratio && med <= 0 {
			skipped++
			continue
		}
		hm.Jobs, hm.Values, hm.Runs = append(hm.Jobs, i), append(hm.Values, med), append(hm.Runs, runs)
	}
	if skipped > 0 {
		hm.Note = fmt.Sprintf("%d of the jobs left out: their median was 0, and a ratio needs positive values", skipped)
	}
	if !hm.enough() {
		hm.Note = fmt.Sprintf("%d jobs measured it: at least %d are needed to find a change", len(hm.Values), 2*stats.DefaultMinSegment)
	}
	return hm
}

// findChanges runs the change-point search on one metric.
func findChanges(hm *HistoryMetric, jobs []HistoryJob, alpha float64, seed uint64) error {
	if !hm.enough() {
		return nil
	}
	hm.Alpha = alpha
	sc, dir := scale(hm.Meta), direction(hm.Meta)
	x, err := sc.Values(hm.Values)
	if err != nil {
		return fmt.Errorf("history of %s: %w", hm.Meta.Key, err)
	}
	floor := math.Abs(stats.ToScale(sc, stats.HigherIsWorse, hm.Floor))
	cps, err := stats.ChangePoints(x, stats.ChangePointOptions{Alpha: alpha, MinStep: floor, Seed: seed})
	if err != nil {
		return fmt.Errorf("history of %s: %w", hm.Meta.Key, err)
	}
	for _, cp := range cps {
		hm.Changes = append(hm.Changes, describeChange(hm, jobs, cp, sc, dir))
	}
	return nil
}

func describeChange(hm *HistoryMetric, jobs []HistoryJob, cp stats.ChangePoint, sc stats.Scale, dir stats.Direction) HistoryChange {
	before := hm.Values[cp.Index-cp.Before : cp.Index]
	after := hm.Values[cp.Index : cp.Index+cp.After]
	c := HistoryChange{At: hm.Jobs[cp.Index], First: hm.Jobs[cp.First], Last: hm.Jobs[cp.Last],
		Before: stats.Median(before), After: stats.Median(after), P: cp.P,
		Change: userChange(sc, cp.Step), Lo: userChange(sc, cp.Lo), Hi: userChange(sc, cp.Hi),
		Worse: dir.Sign()*cp.Step > 0}
	// The range runs from the last job known at the old level to the last
	// that may be the first at the new one.
	from := hm.Jobs[max(cp.First-1, 0)]
	c.Environment, c.ByEnvironment = environmentChanges(jobs[from : c.Last+1])
	return c
}

// userChange is a step on the comparison scale in percent (points for
// rates), signed as the values move.
func userChange(sc stats.Scale, step float64) float64 {
	if sc == stats.Points {
		return step
	}
	return 100 * math.Expm1(step)
}

// environmentChanges lists what changed between consecutive jobs besides
// the code, and whether any of it (machine, runner, definition) can move
// the figures by itself.
func environmentChanges(jobs []HistoryJob) ([]string, bool) {
	var out []string
	byEnv := false
	for i := 1; i < len(jobs); i++ {
		a, b := jobs[i-1], jobs[i]
		at := " (at " + shortCommit(b) + ")"
		if a.Machine != b.Machine {
			out, byEnv = append(out, fmt.Sprintf("machine %s → %s%s", a.Machine, b.Machine, at)), true
		}
		if a.Runner != b.Runner {
			out, byEnv = append(out, fmt.Sprintf("runner image %s → %s%s", orUnknown(a.Runner), orUnknown(b.Runner), at)), true
		}
		if a.Definition != b.Definition {
			out, byEnv = append(out, "benchmark definition changed"+at), true
		}
		if a.Tool != b.Tool {
			out = append(out, fmt.Sprintf("measured by %s → %s%s", a.Tool, b.Tool, at))
		}
	}
	return slices.Compact(out), byEnv
}

func shortCommit(j HistoryJob) string {
	if len(j.Commit) > 12 {
		return j.Commit[:12]
	}
	if j.Commit == "" {
		return "job " + j.Job
	}
	return j.Commit
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
