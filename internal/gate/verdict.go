// Package gate owns the decision policy: given baseline runs, head runs and
// a Policy, it judges every metric (regression, changed within noise,
// improvement, pass, inconclusive, not available, not gated, set by the
// load), states what effect sizes the comparison could detect, and
// combines the gated metrics into one Verdict. Judge compares two fixed
// samples: the statistics of each metric come from stats.Compare, and the
// gate decides which metrics are gated, by which floor, and what the
// comparison means (regression ⇔ p ≤ α and effect > floor).
// JudgeSequential judges the pairs of a sequential A/B job by the rule of
// stats.SeqDesign and says whether the job may stop. It does no I/O; the
// caller supplies the context (no baseline, definition changed,
// environment differs, how the calibration was taken) it cannot see.
package gate

import "github.com/tailgate-ci/tailgate/internal/stats"

// Outcome is the overall verdict.
type Outcome string

const (
	Pass         Outcome = "pass"
	Regression   Outcome = "regression"
	Inconclusive Outcome = "inconclusive"
)

// MetricOutcome is the verdict on one metric.
type MetricOutcome string

const (
	MetricPass         MetricOutcome = "pass"
	MetricRegression   MetricOutcome = "regression"
	WithinNoise        MetricOutcome = "within_noise" // significant, but inside the floor: passes
	Improvement        MetricOutcome = "improvement"  // significant and beyond the floor, the good way
	MetricInconclusive MetricOutcome = "inconclusive"
	NotAvailable       MetricOutcome = "not_available" // missing from one side (never read as zero)
	NotGated           MetricOutcome = "not_gated"     // reported only: no floor to judge it by
	// SetByLoad: the load fixes the metric by construction (open-loop
	// iterations/s is the offered rate): reported, never gated.
	SetByLoad MetricOutcome = "set_by_load"
	// Sequential A/B only: WithinMinEffect is a change confidently smaller
	// than min_effect (passes); Undecided is a metric the pairs so far do
	// not decide (the job goes on, or stopped for another reason).
	WithinMinEffect MetricOutcome = "within_min_effect"
	Undecided       MetricOutcome = "undecided"
)

// FloorSource says where a metric's noise floor comes from.
type FloorSource string

const (
	FromCalibration FloorSource = "calibrated"
	FromDefault     FloorSource = "default"
	FromConfig      FloorSource = "config"
	FromJob         FloorSource = "this job" // A/B: measured from both sides' runs
	// FromMinEffect: sequential A/B judges against min_effect (the
	// configured one, else DefaultMinEffect), not against a noise floor.
	FromMinEffect FloorSource = "min_effect"
	NoFloor       FloorSource = "none"
)

// Verdict is the judgement of one comparison.
type Verdict struct {
	Outcome     Outcome
	Regressions []string // keys of the gated metrics that regressed
	Findings    []Finding
	Detect      []Detectable
	Warnings    []stats.Warning
	HeadRuns    int
	BaseRuns    int
	// Sequential is set for sequential A/B verdicts (JudgeSequential).
	Sequential *Sequential
	// Noise is, in a sequential verdict, per gated metric judged, the
	// spread of this job's own units on the comparison scale and its
	// degrees of freedom: what a noise file keeps for later jobs.
	// PriorUsed names the metrics whose looks pooled a stored noise, with
	// its degrees of freedom.
	Noise     map[string]stats.SeqPrior
	PriorUsed map[string]int
	// Incomplete names, in a sequential verdict, the gated metrics that one
	// side measured and the other lost in some units, which left them
	// undecided ("CPU/iteration (head lacks it in block 2)"): the
	// comparison is incomplete, a failure of the job rather than a pass
	// (unless Policy.AllowMissing). Empty otherwise.
	Incomplete []string
}

// Finding is the judgement of one metric. Figures a comparison could not
// produce are NaN.
type Finding struct {
	Key        string
	Label      string
	Unit       string // the metric's unit: "/s", "ms", "%"
	Percent    bool   // a rate in percent: Change, Worse and Floor are in percentage points
	Gated      bool
	BaseMedian float64
	HeadMedian float64
	// Change is head against base: a signed relative change in percent for
	// ratio metrics, a difference in percentage points for rates.
	Change float64
	// Worse is the change in the bad direction, in the units of Change
	// (negative when the metric improved); compared with Floor.
	Worse float64
	// P is the one-sided p-value in the direction the metric moved.
	P float64
	// Test names the test that produced P.
	Test        string
	Floor       float64 // in the units of Change; NaN without a floor
	FloorSource FloorSource
	Outcome     MetricOutcome
	Note        string
	N, M        int // head runs, baseline samples
	// Sequential A/B (JudgeSequential) only, NaN otherwise: Estimate is the
	// mean pair difference in the bad direction at the look that decided
	// (or the latest look), in the units of Worse, corrected for the bias
	// of stopping at that look (stats.SeqDesign.MedianUnbiased); Lower and Upper are its
	// repeated confidence bounds (levels α/K and β; ±Inf where a look
	// bounds nothing). Change and Worse are the same estimate. DecidedAt is
	// the pairs at the deciding look, 0 while undecided.
	Estimate, Lower, Upper float64
	DecidedAt              int
	// Sequential A/B only, NaN otherwise: StdErr is the standard error of
	// Estimate on the comparison scale (a log ratio, or points for rates):
	// the spread the test used over the root of the pairs it judged, with
	// DF degrees of freedom (the prior's included). Unlike Lower and
	// Upper it carries no sequential correction: a fixed-sample figure,
	// which a chain of main's commits adds up (LinkOf).
	StdErr float64
	DF     int
	// Sequential A/B only: BaseCenter and HeadCenter are what Change is
	// made of, over the judged pairs: their geometric means (Center
	// "geometric mean"), or means for rates ("mean"): HeadCenter against
	// BaseCenter is the mean difference, which Change corrects for the
	// look that stopped the job (medians need not agree with a paired
	// estimate). NaN and "" otherwise.
	BaseCenter, HeadCenter float64
	Center                 string
}

// Detectable states the smallest regression of a gated metric the
// comparison detects with 80 % probability.
type Detectable struct {
	Key       string
	Label     string
	N, M      int
	Effect    float64 // in Unit; NaN when Possible is false
	Unit      string  // "%" for ratio metrics, "pp" for rates
	Direction string  // "drop" or "rise": the bad direction
	Method    string  // how Effect was found: stats.MethodFormula, MethodMonteCarlo or MethodPairs
	Possible  bool
	Note      string
}

// HasWarning reports whether the verdict carries a warning of code.
func (v Verdict) HasWarning(code stats.WarningCode) bool { return stats.HasWarning(v.Warnings, code) }

// Sequential describes a sequential A/B verdict: how many pairs were
// judged, whether the look decided, and why it stopped. It is nil for
// fixed-sample comparisons.
type Sequential struct {
	// Pairs is the number of pairs judged; MinPairs and MaxPairs are the
	// design's first look and budget.
	Pairs, MinPairs, MaxPairs int
	// Done is set when the verdict is final: a regression was found,
	// every gated metric decided (or was left inconclusive by a pair that
	// lacks it), or the budget is spent (or the caller said final); never
	// before MinPairs unless the caller said final. Detect is filled only
	// then.
	Done bool
	// Reason says why the job stopped (or why it goes on), e.g.
	// "regression after 7 blocks in CPU/iteration".
	Reason string
	// MorePairs, when the budget ended undecided, is how many more pairs
	// would likely decide; 0 when unknown.
	MorePairs int
	// Unit is what Pairs, MinPairs and MaxPairs count: "block" (both
	// sides' windows, RunPairs window pairs in all; a pair of whole runs
	// is a block of one). Reports written before blocks say "pair".
	Unit     string
	RunPairs int
	// Budget is the number of units the binding budget allows (ab.max_time
	// at the job's pace, when it binds before MaxPairs): what Detect is
	// priced at. 0: MaxPairs.
	Budget int
}

// UnitWord is the unit's name, plural when n is not 1.
func (s *Sequential) UnitWord(n int) string {
	u := blockUnit
	if s != nil && s.Unit != "" {
		u = s.Unit
	}
	if n == 1 {
		return u
	}
	return u + "s"
}
