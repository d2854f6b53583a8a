package result

import (
	"maps"
	"slices"
)

// Concat is one run made of consecutive windows of one phase: counts,
// time, CPU and footprint totals summed, histograms merged, peak memory
// the largest, and metrics summarized afresh (a percentile of every
// request, not a mean of percentiles; iterations/s the count over the
// windows' busy times summed where each has one, so that a block's rate
// is its windows' rates weighted by their counts). Concat of no runs is
// the zero Run.
func Concat(runs []Run) Run {
	if len(runs) == 0 {
		return Run{}
	}
	out := Run{Started: runs[0].Started, Model: runs[0].Model, OfferedRate: runs[0].OfferedRate}
	addWork(&out, runs)
	lists := make([][]Statement, len(runs))
	for i := range runs {
		out.Window, out.Busy = out.Window+runs[i].Window, out.Busy+runs[i].Busy
		out.Notes = AppendNew(out.Notes, runs[i].Notes...)
		lists[i] = runs[i].Statements
	}
	if slices.ContainsFunc(runs, func(r Run) bool { return !(r.Busy > 0) }) {
		out.Busy = 0
	}
	out.Resources = sumResources(runs)
	out.Parts = sumParts(runs)
	out.Counters = sumCounters(runs)
	out.Statements = SumStatements(lists...)
	out.Summarize()
	return out
}

// sumResources adds the windows' CPU and keeps the largest peak memory;
// a figure some window lacks is absent from the sum (never a part of it).
func sumResources(runs []Run) *Resources {
	if slices.ContainsFunc(runs, func(r Run) bool { return r.Resources == nil || !(r.Resources.CPUSeconds > 0) }) {
		return foldResources(runs, func(float64, float64) float64 { return 0 })
	}
	return foldResources(runs, add)
}

// sumParts adds each part's figures over the windows (the peak memory
// the largest), keeping only the figures every window of the part has.
func sumParts(runs []Run) []Part {
	var out []Part
	var names []string
	for i := range runs {
		for _, p := range runs[i].Parts {
			names = AppendNew(names, p.Name)
		}
	}
	for _, name := range names {
		p := Part{Name: name}
		for i := range runs {
			j := slices.IndexFunc(runs[i].Parts, func(q Part) bool { return q.Name == name })
			if j < 0 {
				p.Totals = nil
				break
			}
			q := runs[i].Parts[j]
			p.Processes = max(p.Processes, q.Processes)
			if i == 0 {
				p.Totals = maps.Clone(q.Totals)
			} else {
				addCommon(p.Totals, q.Totals)
			}
		}
		if len(p.Totals) == 0 {
			p.Totals = nil
		}
		out = append(out, p)
	}
	return out
}

// sumCounters adds each counter's growth over the windows, keeping only
// the counters every window read.
func sumCounters(runs []Run) map[string]float64 {
	out := maps.Clone(runs[0].Counters)
	for i := 1; i < len(runs); i++ {
		addCommon(out, runs[i].Counters)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// addCommon adds b's values to the keys of a that b has too (the larger
// of a peak memory) and drops the others: a figure some window lacks is
// absent from the sum.
func addCommon(a, b map[string]float64) {
	for k, v := range a {
		w, ok := b[k]
		switch {
		case !ok:
			delete(a, k)
		case k == FigurePeakRSS:
			a[k] = max(v, w)
		default:
			a[k] = v + w
		}
	}
}

// Combine is one run made of consecutive windows of every phase on one
// target (each window a run of its phases, as a run of several phases is):
// each phase's windows concatenated (Concat), then the phases merged
// (MergePhases). Windows of one phase (no Phases) are concatenated.
func Combine(windows []Run) Run { return CombineCounted(windows, nil) }

// PhaseCounters is the work counters' growth over all of one phase's
// windows, read once around them, with notes on those not read.
type PhaseCounters struct {
	Values map[string]float64
	Notes  []string
	// Statements is what each database statement did over the phase.
	Statements []Statement
}

// CombineCounted is Combine where the work counters were read once around
// each phase's windows (reading them can outlast a short window):
// counted[p] is phase p's growth, which the combined phase gets.
func CombineCounted(windows []Run, counted []PhaseCounters) Run {
	if len(windows) == 0 {
		return Run{}
	}
	grown := func(p int, run Run) Run {
		if p >= len(counted) {
			return run
		}
		run.Notes = append(run.Notes, counted[p].Notes...)
		if len(counted[p].Values) > 0 {
			run.Counters = counted[p].Values
			run.Summarize()
		}
		if len(counted[p].Statements) > 0 {
			run.Statements = counted[p].Statements
		}
		return run
	}
	if len(windows[0].Phases) == 0 {
		return grown(0, Concat(windows))
	}
	phases := make([]Phase, len(windows[0].Phases))
	for p := range phases {
		runs := make([]Run, 0, len(windows))
		for _, w := range windows {
			if p < len(w.Phases) {
				runs = append(runs, w.Phases[p].Run)
			}
		}
		if first := windows[0].Phases[p]; first.Skipped {
			phases[p] = first
			continue
		}
		phases[p] = Phase{Name: windows[0].Phases[p].Name, Run: grown(p, Concat(runs))}
	}
	if len(phases) == 1 {
		return phases[0].Run
	}
	return *MergePhases(phases)
}

// WindowPairs are the windows of A/B's blocks: Base[i] and Head[i] are
// window pair i, measured in block Block[i] (from 0, in order). A block's
// run of a side is its windows combined; their spread says how much of the
// blocks' spread the windows alone explain (LeaveOneOut).
type WindowPairs struct {
	Base, Head []Run
	Block      []int
	// Join makes a block's run of a side from its windows; nil: Combine.
	// (A caller whose windows hold only metrics, no counts, gives its own.)
	Join func([]Run) Run

	loo map[int][2][]Run // LeaveOneOut's, by block
}

// Pairs is the number of window pairs.
func (w *WindowPairs) Blocks() int {
	if w == nil {
		return 0
	}
	return min(len(w.Base), len(w.Head), len(w.Block))
}

// InBlocks is the number of window pairs in the first blocks blocks.
func (w *WindowPairs) InBlocks(blocks int) int {
	n := 0
	for n < w.Blocks() && w.Block[n] < blocks {
		n++
	}
	return n
}

// Settle makes block b's replicates (LeaveOneOut) and drops the latency
// histograms of its windows and replicates, keeping their counts and
// metrics: a look reads no more of them, and with them a PocketBase job of
// 6 blocks peaked at 739 MB, not 200 (a window holds some 24 histograms of
// 180 kB), which the garbage collector swept while the next windows ran.
// Call it once the block's last window pair is in.
func (w *WindowPairs) Settle(b int) {
	base, head := w.LeaveOneOut(b) // the cache's own slices: set in place
	for _, runs := range [][]Run{base, head} {
		for i := range runs {
			runs[i] = runs[i].WithoutHistograms()
		}
	}
	for i := 0; i < w.Blocks(); i++ {
		if w.Block[i] == b {
			w.Base[i], w.Head[i] = w.Base[i].WithoutHistograms(), w.Head[i].WithoutHistograms()
		}
	}
}

// LeaveOneOut is, for each window pair of block b, the block's runs of
// each side without it (jackknife replicates); empty below two pairs.
// They are kept while the block has as many pairs: every gated metric of
// a look reads the last block's, and merging its windows' histograms
// once per metric took most of a look (0.5-1 s a block on a busy runner).
func (w *WindowPairs) LeaveOneOut(b int) (base, head []Run) {
	var idx []int
	for i := 0; i < w.Blocks(); i++ {
		if w.Block[i] == b {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return nil, nil
	}
	if r, ok := w.loo[b]; ok && len(r[0]) == len(idx) {
		return r[0], r[1]
	}
	join := w.Join
	if join == nil {
		join = Combine
	}
	others := func(side []Run, skip int) []Run {
		out := make([]Run, 0, len(idx)-1)
		for _, i := range idx {
			if i != skip {
				out = append(out, side[i])
			}
		}
		return out
	}
	for _, i := range idx {
		base = append(base, join(others(w.Base, i)))
		head = append(head, join(others(w.Head, i)))
	}
	if w.loo == nil {
		w.loo = map[int][2][]Run{}
	}
	w.loo[b] = [2][]Run{base, head}
	return base, head
}
