package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// ABRun is how an A/B job ran, as facts: the pipeline fills it from the
// job's one resolved plan and what the runner measured, and the report
// puts it into words (notes), so that every sentence about a job's blocks
// is written here, once, for the terminal, the PR comment, the page and
// report.json alike.
type ABRun struct {
	// Blocks is the blocks measured, MaxBlocks the budget (ab.max_blocks),
	// Elapsed their wall time, starts included.
	Blocks, MaxBlocks int
	Elapsed           time.Duration
	// WholeRuns says why each block was a pair of whole runs, one side at
	// a time; zero for blocks of windows. Order is then the runs' order,
	// true for the base.
	WholeRuns result.Apart
	Order     []bool
	// Windows is each side's windows per phase in a block, Window their
	// measured length: chosen for Lifecycle (a virtual user's in the
	// warm-up) where Chosen, raised from Fills (those that fill the longest
	// phase) for RaisedFor (as the windows run) where Fills > 0.
	Windows, Fills               int
	Window, Lifecycle, RaisedFor time.Duration
	Chosen                       bool
	// Phases says of each phase whether its windows loaded both sides at
	// once or alternated between them.
	Phases []ABPhase
	// Alternate says why every phase alternated (zero when the sides could
	// be told apart while both were loaded); RandomOrder, that
	// alternating windows ran in a seeded random order (else A B B A …).
	Alternate   result.Apart
	RandomOrder bool
	// Restarted: each side was started afresh for every block, Starts
	// times in all, StartTime of starting and stopping.
	Restarted bool
	Starts    int
	StartTime time.Duration
	// Spent is where the job's time went ("start 1.2 s (10 %), …").
	Spent string
	// Planned, when above 0, is the blocks that ab.max_time (MaxTime)
	// allows at the pace of a block (Pace) before the first look, fewer
	// than MaxBlocks: the verdict was planned for that many.
	Planned int
	MaxTime string
	Pace    time.Duration
	// Warmups are the phases whose warm-up the first block found longer
	// than load.warmup.
	Warmups []result.Warmup
	// AA: the base build stood on both sides.
	AA bool
}

type ABPhase struct {
	Name   string
	AtOnce bool
	// VUs is a closed phase's virtual users (load.vus); 0 for an open one.
	VUs int
	// Duet, for a closed phase, is what the first block's probe found
	// measuring it both ways, which decided AtOnce for the blocks.
	Duet *result.Duet
}

// leastPerUser is the fewest iterations per virtual user a closed window should hold.
const leastPerUser = 3

// fewIterationsWarning says when a closed phase's windows held fewer than leastPerUser iterations per user
// at some block's iterations/s (either side; the rate, as a window shorter than a lifecycle still counts
// one), and the ab.window that would hold that many.
func (r *ABRun) fewIterationsWarning(in Input) string {
	if r == nil || r.WholeRuns.Why != 0 || r.Windows <= 0 {
		return ""
	}
	least, phase := math.Inf(1), ""
	for _, ph := range slices.DeleteFunc(slices.Clone(r.Phases), func(ph ABPhase) bool { return ph.VUs <= 0 }) {
		for _, run := range slices.Concat(in.Base, in.Head) {
			if i := slices.IndexFunc(run.Phases, func(p result.Phase) bool { return p.Name == ph.Name }); i >= 0 {
				run = run.Phases[i].Run
			}
			if n := run.Metrics[result.IterationsPerSec] * r.Window.Seconds() / float64(ph.VUs); n > 0 && n < least {
				least, phase = n, ph.Name
			}
		}
	}
	if !(least < leastPerUser) {
		return ""
	}
	if len(r.Phases) > 1 {
		phase = " of phase " + phase
	}
	want := time.Duration(math.Ceil(leastPerUser/least*r.Window.Seconds())) * time.Second
	return fmt.Sprintf("the closed windows%s held as few as %.1f iterations per virtual user at their iterations/s (fewer than %d), so it rests on a few long lifecycles: raise ab.window to %s to hold at least %d",
		phase, least, leastPerUser, want, leastPerUser)
}

// notes are the sentences of an A/B job's run, in the order a reader
// needs them: what the blocks were, what may have failed both sides, what restarting and the rest of the
// time cost, how the budget was planned, and for an A/A job the noise.
func (r *ABRun) notes(in Input) []string {
	if r == nil {
		return nil
	}
	var notes []string
	add := func(s string) {
		if s != "" {
			notes = append(notes, s)
		}
	}
	add(r.blocksNote())
	for _, w := range r.Warmups {
		add(warmupNote(w))
	}
	add(r.sharedStateNote(in.Base, in.Head))
	if r.Restarted && r.Starts > 0 {
		add(fmt.Sprintf("each side was started afresh for every block: %d starts, %s of starting and stopping",
			r.Starts, r.StartTime.Round(100*time.Millisecond)))
	}
	add(skippedNote(in.Base))
	if r.Spent != "" {
		add("where the time went: " + r.Spent)
	}
	add(spreadNote(in.Verdict))
	if r.Planned > 0 {
		add(fmt.Sprintf("budget: ab.max_time (%s) allows about %d %s at %s a block, fewer than ab.max_blocks (%d): the verdict was planned for %d",
			r.MaxTime, r.Planned, plural(r.Planned, "block", "blocks"), r.Pace.Round(100*time.Millisecond), r.MaxBlocks, r.Planned))
	}
	if r.AA {
		notes = append(notes, aaNotes(in.Verdict, in.Base, in.Head)...)
	}
	return notes
}

// blocksNote says what the job's blocks were: pairs of whole runs and why,
// or each phase's windows and how they ran.
func (r *ABRun) blocksNote() string {
	head := fmt.Sprintf("%d %s of at most %d in %s", r.Blocks, plural(r.Blocks, "block", "blocks"), r.MaxBlocks, r.Elapsed.Round(100*time.Millisecond))
	if r.WholeRuns.Why != 0 {
		order := mapped(r.Order, func(base bool) string { return map[bool]string{true: "A", false: "B"}[base] })
		return fmt.Sprintf("%s, each a pair of whole runs, one side at a time, as %s; order of runs (A = base, B = head): %s",
			head, ApartReason(r.WholeRuns), strings.Join(order, " "))
	}
	how := make([]string, 0, len(r.Phases))
	for _, ph := range r.Phases {
		w := "both sides loaded at the same time"
		if !ph.AtOnce {
			w = "alternating between the sides (" + map[bool]string{true: "each window pair in a seeded random order",
				false: "A B B A …, the first side changing from block to block"}[r.RandomOrder] + ")"
		}
		w += duetNote(ph.Duet)
		if len(r.Phases) > 1 {
			w = "phase " + ph.Name + " " + w
		}
		how = append(how, w)
	}
	s := fmt.Sprintf("%s; in each block both sides were started once and each phase measured in %d windows of %s per side%s: %s",
		head, r.Windows, r.Window, r.windowsChosen(), strings.Join(how, "; "))
	if r.Alternate.Why != 0 {
		s += ", as " + ApartReason(r.Alternate)
	}
	return s
}

// windowsChosen says how the job chose its windows, where it did.
func (r *ABRun) windowsChosen() string {
	var why []string
	if r.Chosen {
		why = append(why, fmt.Sprintf("ab.window unset: chosen to hold %d lifecycles of a virtual user (%s each in the warm-up), within 500ms–5s and half the longest phase",
			leastPerUser, r.Lifecycle.Round(time.Millisecond)))
	}
	if r.Fills > 0 {
		why = append(why, fmt.Sprintf("ab.windows unset: %d rather than the %d that fill load.duration, toward %d lifecycles of a virtual user a block (%s each as the windows run), at most twice as many",
			r.Windows, r.Fills, config.BlockLifecycles, r.RaisedFor.Round(time.Millisecond)))
	}
	return map[bool]string{true: " (" + strings.Join(why, "; ") + ")"}[len(why) > 0]
}

// sharedStateNote is the hint a job gives when requests failed on both
// sides and some phase loaded both at once: two sides that share a
// database (or any state) write to it at the same time then, and one
// side's writes can fail the other's checks, which one side at a time
// would not.
func (r *ABRun) sharedStateNote(base, head []result.Run) string {
	atOnce := slices.ContainsFunc(r.Phases, func(ph ABPhase) bool { return ph.AtOnce })
	failed := func(runs []result.Run) (n, total int64) {
		for _, r := range runs {
			n, total = n+r.Requests.Failed, total+r.Requests.Total
		}
		return n, total
	}
	bf, bt := failed(base)
	hf, ht := failed(head)
	if !atOnce || bf == 0 || hf == 0 {
		return ""
	}
	return fmt.Sprintf("requests failed on both sides (%d of %d base, %d of %d head): where a phase loads both sides at the same time, two sides that share a database or other state write to it at once, and one side's writes can fail the other's checks; give each side its own (TAILGATE_SIDE in the start and dataset commands), or measure the shared server as a part of both (target.measure), which makes every phase alternate",
		bf, bt, hf, ht)
}

// skippedNote says which phases later blocks left out, once their gated
// metrics had decided; "" when none did.
func skippedNote(blocks []result.Run) string {
	if len(blocks) == 0 {
		return ""
	}
	var parts []string
	for p, ph := range blocks[0].Phases {
		var left []int
		for i, run := range blocks {
			if p < len(run.Phases) && run.Phases[p].Skipped {
				left = append(left, i+1)
			}
		}
		if len(left) > 0 {
			parts = append(parts, fmt.Sprintf("phase %s was left out of %d of %d blocks, from block %d on", ph.Name, len(left), len(blocks), left[0]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ", once every gated metric taken from it had decided: the time went to the undecided metrics, and the decided ones keep their decisions, made on the blocks that measured them"
}

// spreadNote splits each gated metric's spread of a block's change at the
// deciding look into the noise within the blocks' windows, which more
// windows a block (a longer load.duration) narrows, and the rest, which
// lies between blocks (each block's processes, its moment) and only more
// blocks average out: which of the two buys a tighter verdict here.
func spreadNote(v gate.Verdict) string {
	var parts []string
	for _, f := range v.Findings {
		l := f.Look
		if !f.Gated || l == nil || l.Exact || orderStatistics[f.Key] || !(l.WindowsSD > 0) || !(l.Dec.OwnSpread > 0) {
			continue
		}
		own, windows := l.Dec.OwnSpread, l.WindowsSD
		between := math.Sqrt(math.Max(own*own-windows*windows, 0))
		parts = append(parts, fmt.Sprintf("%s %s (windows %s, between blocks %s)", f.Label, SpreadText(f, own), SpreadText(f, windows), SpreadText(f, between)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "what a block's change spread by (SD over the blocks), and how much of it the noise within their windows explains, which a longer load.duration narrows; the rest lies between blocks and only more blocks narrow it: " +
		strings.Join(parts, "; ")
}

// orderStatistics are the metrics whose spread a block's windows cannot
// split: the jackknife over the windows overstates a quantile's or a
// maximum's (Caddy's latency p95: windows 5.5 %, the blocks 2.3 %).
var orderStatistics = map[string]bool{
	result.LatencyP50: true, result.LatencyP90: true, result.LatencyP95: true, result.LatencyP99: true, result.LatencyMax: true,
	result.IterationP50: true, result.IterationP95: true, result.IterationP99: true, result.PeakRSS: true, result.ScheduleLagP99: true,
}

// warmupNote says how long a phase warmed up and why: the figures of
// each slice of the first block's warm-up, which still fell after
// load.warmup.
func warmupNote(w result.Warmup) string {
	what := w.Metric
	unit := ""
	if m, ok := result.Lookup(w.Metric); ok {
		what, unit = m.Label, m.Unit
	}
	phase := "the warm-up"
	if w.Phase != "" {
		phase = "phase " + w.Phase + "'s warm-up"
	}
	sides := make([]string, 2)
	for i, name := range []string{"base", "head"} {
		sides[i] = name + " " + strings.Join(mapped(w.Slices[i], func(v float64) string { return formatValue(v, unit) }), ", ")
	}
	s := fmt.Sprintf("%s took %s in every block instead of load.warmup's %s, as the sides still got faster after it (%s in the first block's load.warmup and each %s after it: %s)",
		phase, w.Found.Round(100*time.Millisecond), w.Configured, what, w.Slice, strings.Join(sides, "; "))
	if w.Capped {
		s += "; they were still getting faster at that bound (10× load.warmup, at least 10 s): a longer load.warmup measures them warmer"
	}
	return s
}

// duetNote says how the first block decided a closed phase's windows.
func duetNote(d *result.Duet) string {
	if d == nil {
		return ""
	}
	if !d.Measured {
		return ", as the first block's probe of both ways (before its windows, no part of a block) had no CPU per iteration of both sides to show that loading them together changes nothing"
	}
	pct := func(x float64) string { return signed(100*(math.Exp(x)-1), "%.1f") + " %" }
	ratio := ""
	if d.Throughput {
		ratio = " and the head-to-base ratio of iterations/s by " + pct(d.Shift)
	}
	return fmt.Sprintf(", as the first block's probe of both ways found (before its windows, no part of a block): loaded together, CPU per iteration changed by %s (base) and %s (head)%s, %s ±%.0f %%",
		pct(d.Inflation[0]), pct(d.Inflation[1]), ratio, map[bool]string{true: "within", false: "not all within"}[d.AtOnce], 100*(math.Exp(d.Tolerance)-1))
}
