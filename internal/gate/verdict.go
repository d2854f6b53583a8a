// Package gate owns the decision policy: from baseline runs, head runs and
// a Policy it judges every metric (MetricOutcome), states the effects the
// comparison could detect, and combines the gated metrics into a Verdict.
// Judge compares two fixed samples by stats.Compare, deciding which metrics
// are gated, by which floor, and what the result means (regression ⇔ p ≤ α
// and effect > floor); JudgeSequential judges a sequential A/B job's pairs
// by stats.SeqDesign and says whether it may stop; AnalyzeHistory and
// AnalyzeChainFrom read main's history. No I/O: the caller supplies the
// Context it cannot see.
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
	// Noise is, in a sequential verdict, each judged metric's spread of
	// this job's units (what a noise file keeps for later jobs); PriorUsed
	// the degrees of freedom of a stored noise a metric's looks pooled.
	Noise     map[string]stats.SeqPrior
	PriorUsed map[string]int
	// Incomplete are, in a sequential verdict, the keys of the gated metrics one side lost in some units, left
	// undecided (report.Cut words them): a failure, not a pass, unless Policy.AllowMissing.
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
	Worse       float64
	P           float64 // one-sided, in the direction the metric moved
	Test        string  // the test that produced P
	Floor       float64 // in the units of Change; NaN without a floor
	FloorSource FloorSource
	Outcome     MetricOutcome
	Note        string
	N, M        int // head runs, baseline samples
	// Sequential A/B only, NaN otherwise: Estimate is Worse at the deciding
	// (or latest) look, corrected for the bias of stopping there; Lower and
	// Upper its repeated confidence bounds (±Inf where a look bounds
	// nothing); DecidedAt the units at the deciding look.
	Estimate, Lower, Upper float64
	DecidedAt              int
	// StdErr is Estimate's fixed-sample standard error on the comparison
	// scale with DF degrees of freedom, which a chain adds up (LinkOf).
	StdErr float64
	DF     int
	// BaseCenter and HeadCenter are the sides' geometric means over the
	// judged pairs (Center "geometric mean"), or means for rates ("mean"),
	// whose difference Change corrects. Sequential only.
	BaseCenter, HeadCenter float64
	Center                 string
	// Look is, in a sequential verdict, what the look showed, which report words before Note.
	Look *Look
}

// Look is what a sequential look showed of a metric: the decision (an exact count's when Exact), its change head
// against base (Change, Sign: the change per unit worse) in a budget of MaxBlocks; the blocks that lack the metric
// (Gaps), which left it undecided when Cut, Complete blocks before them; Stopped, the verdict's Sequential when the
// job stopped with the metric undecided; WindowsSD, the part of the blocks' own spread (Dec.OwnSpread) that the
// noise within their windows explains, on the comparison scale (0: no windows, or not known): the rest lies between
// blocks, which longer blocks do not narrow.
type Look struct {
	Dec                 stats.SeqDecision
	Exact, Cut          bool
	Change, Sign        float64
	MaxBlocks, Complete int
	Gaps                Gaps
	Stopped             *Sequential
	WindowsSD           float64
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
	Cut       *Gaps // a gap left the metric unjudged (report words the note)
}

// HasWarning reports whether the verdict carries a warning of code.
func (v Verdict) HasWarning(code stats.WarningCode) bool { return stats.HasWarning(v.Warnings, code) }

// Sequential describes a sequential A/B verdict; nil for fixed-sample
// comparisons.
type Sequential struct {
	// Blocks is the units judged; MinBlocks and MaxBlocks the design's
	// first look and budget.
	Blocks, MinBlocks, MaxBlocks int
	Done                         bool // the verdict is final; Detect is filled only then
	// Why is why the job stopped or goes on, which report words (report.StopReason); a report read back has only
	// the words (Reason: "regression after 7 blocks in CPU/iteration").
	Why    Why
	Reason string
	// MoreBlocks, when the budget ended undecided, is how many more units
	// would likely decide; 0 when unknown.
	MoreBlocks int
	// Unit is what Pairs counts: "block" (RunPairs window pairs in all; a
	// pair of whole runs is a block of one); older reports say "pair".
	Unit     string
	RunPairs int
	// Budget is the units the binding time budget allows, when it binds
	// before MaxBlocks: what Detect is priced at. 0: MaxBlocks.
	Budget int
}

// Why is why a sequential job stopped or goes on: Stop, the metrics it names (Labels: regressed or undecided), those
// no practical number of more blocks would likely decide (Hopeless) and the gated metrics some blocks lack (Missing).
type Why struct {
	Stop                      Stop
	Labels, Hopeless, Missing []string
}

type Stop int // the kind of a Why

const (
	StopBadDesign Stop = iota + 1 // the design cannot be used
	StopNoBlocks
	StopRegression
	StopFirstLook // fewer blocks than the first look
	StopNoneMeasured
	StopDecided
	StopBudget
	StopFinal     // no more blocks will come before the budget
	StopUndecided // goes on
)

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
