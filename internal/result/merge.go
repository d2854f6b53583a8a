package result

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/plural"
)

// Shard says which share of a sharded load a file's runs hold: the
// Index-th (from 1) of Count processes that offered one target the load
// together, started for StartAt, with run k at StartAt + k·Every.
type Shard struct {
	Index   int       `json:"index"`
	Count   int       `json:"count"`
	StartAt time.Time `json:"start_at,omitzero"`
	Every   float64   `json:"run_every_s,omitzero"`
}

// Merged says that a file's runs combine Shards shard files.
type Merged struct {
	Shards  int       `json:"shards"`
	StartAt time.Time `json:"start_at,omitzero"`
}

// ErrMerge is the error of shard files that are not the shares of one
// sharded benchmark.
var ErrMerge = errors.New("cannot merge")

// MergeShards combines the shard files of one sharded benchmark, run k of
// every shard into run k: histograms merged, counts summed, metrics
// summarized anew. The window spans the first shard's start to the last
// one's end, so no rate is overstated. Files that are not every share of
// one benchmark, once, measured together, are refused. names name the
// files in errors (nil: by position).
func MergeShards(files []*File, names []string) (*File, error) {
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("file %d", i+1)
	}
	shards, err := orderShards(files, name)
	if err != nil {
		return nil, err
	}
	first := shards[0]
	out := &File{
		Schema:         SchemaVersion,
		Benchmark:      first.Benchmark,
		DefinitionHash: first.DefinitionHash,
		Source:         first.Source,
		Env:            first.Env,
		Merged:         &Merged{Shards: len(shards), StartAt: first.Shard.StartAt},
	}
	envNote := envDifference(shards)
	for k := range first.Runs {
		runs := make([]Run, len(shards))
		for i, f := range shards {
			runs[i] = f.Runs[k]
		}
		run, err := mergeRuns(runs)
		if err != nil {
			return nil, fmt.Errorf("%w: run %d: %w", ErrMerge, k+1, err)
		}
		run.Index = k
		if envNote != "" {
			run.Notes = append(run.Notes, envNote)
		}
		out.Runs = append(out.Runs, run)
	}
	return out, nil
}

// orderShards checks that files are every shard of one benchmark, once,
// and returns them in shard order.
func orderShards(files []*File, name func(int) string) ([]*File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no shard files", ErrMerge)
	}
	byIndex := map[int]int{} // shard index → position in files
	for i, f := range files {
		if f.Merged != nil {
			return nil, fmt.Errorf("%w: %s is already a merged result", ErrMerge, name(i))
		}
		if f.Shard == nil || f.Source != "tailgate" {
			return nil, fmt.Errorf("%w: %s is not a shard result (written by tailgate run --shard I/N)", ErrMerge, name(i))
		}
		s, s0 := f.Shard, files[0].Shard
		switch {
		case s.Count != s0.Count:
			return nil, fmt.Errorf("%w: %s is shard %d/%d but %s is %d/%d: they split different loads", ErrMerge, name(0), s0.Index, s0.Count, name(i), s.Index, s.Count)
		case f.DefinitionHash == "" || f.DefinitionHash != files[0].DefinitionHash:
			return nil, fmt.Errorf("%w: %s and %s measured different benchmark definitions (%s, %s)", ErrMerge, name(0), name(i), cmp.Or(files[0].DefinitionHash, "none"), cmp.Or(f.DefinitionHash, "none"))
		case !s.StartAt.Equal(s0.StartAt) || s.Every != s0.Every:
			return nil, fmt.Errorf("%w: %s and %s were started for different times (--start-at %s, %s): they are not shards of one run", ErrMerge, name(0), name(i), startText(s0), startText(s))
		case len(f.Runs) != len(files[0].Runs):
			return nil, fmt.Errorf("%w: %s has %d runs but %s has %d", ErrMerge, name(0), len(files[0].Runs), name(i), len(f.Runs))
		}
		if j, dup := byIndex[s.Index]; dup {
			return nil, fmt.Errorf("%w: %s and %s are both shard %d/%d", ErrMerge, name(j), name(i), s.Index, s.Count)
		}
		byIndex[s.Index] = i
	}
	n := files[0].Shard.Count
	var missing []string
	out := make([]*File, 0, n)
	for idx := 1; idx <= n; idx++ {
		i, ok := byIndex[idx]
		if !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", idx, n))
			continue
		}
		out = append(out, files[i])
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: shard %s missing: merge needs all %d shards", ErrMerge, strings.Join(missing, ", "), n)
	}
	return out, nil
}

func startText(s *Shard) string {
	if s.StartAt.IsZero() {
		return "none"
	}
	t := s.StartAt.UTC().Format(time.RFC3339Nano)
	if s.Every > 0 {
		t += fmt.Sprintf(" every %gs", s.Every)
	}
	return t
}

func mergeRuns(runs []Run) (Run, error) {
	span, err := windowOf(runs)
	if err != nil {
		return Run{}, err
	}
	out := Run{
		Started: span.start,
		Window:  span.end.Sub(span.start).Seconds(),
		Overlap: span.overlap.Seconds(),
		Model:   runs[0].Model,
	}
	offered := false // open-model runs say what they offered
	for i := range runs {
		r := &runs[i]
		if r.Model != out.Model {
			return Run{}, fmt.Errorf("shard 1 ran the %s model but shard %d the %s model", out.Model, i+1, r.Model)
		}
		offered = offered || r.OfferedRate > 0
	}
	addWork(&out, runs)
	if offered {
		out.OfferedRate = float64(out.Iterations.Offered) / out.Window
	}
	out.Resources = foldResources(runs, math.Max) // shards sample one shared target: a sum would count it once per shard
	out.Notes = mergeNotes(runs, span)
	out.Summarize()
	return out, nil
}

// addWork puts the work of runs measured apart (shards at once, windows
// one after another) on out: iterations and requests summed, latency
// histograms, steps and errors merged, the metrics the load set joined.
func addWork(out *Run, runs []Run) {
	out.Iterations.Counted = CountAll
	out.Requests.Counted = CountRequests
	for i := range runs {
		addIterations(&out.Iterations, runs[i].Iterations)
		out.Requests = out.Requests.Plus(runs[i].Requests)
		out.SetByLoad = AppendNew(out.SetByLoad, runs[i].SetByLoad...)
	}
	out.Latency = mergeHists(runs, func(r *Run) *hist.Histogram { return r.Latency })
	out.IterationLatency = mergeHists(runs, func(r *Run) *hist.Histogram { return r.IterationLatency })
	out.ScheduleLag = mergeHists(runs, func(r *Run) *hist.Histogram { return r.ScheduleLag })
	out.Steps = mergeSteps(runs)
	out.Errors = mergeErrors(runs, out.Steps)
}

type span struct {
	start, end time.Time
	overlap    time.Duration
}

// windowOf is the union and the overlap of the runs' windows (Started is
// the warm-up's start, equally long in every shard); runs that never
// measured at once are refused.
func windowOf(runs []Run) (span, error) {
	starts, ends := make([]time.Time, len(runs)), make([]time.Time, len(runs))
	for i := range runs {
		r := &runs[i]
		if r.Started.IsZero() || !(r.Window > 0) {
			return span{}, fmt.Errorf("shard %d has no measure window (start and length)", i+1)
		}
		starts[i], ends[i] = r.Started, r.Started.Add(time.Duration(r.Window*float64(time.Second)))
	}
	s := span{start: slices.MinFunc(starts, time.Time.Compare), end: slices.MaxFunc(ends, time.Time.Compare)}
	lastStart, firstEnd := slices.MaxFunc(starts, time.Time.Compare), slices.MinFunc(ends, time.Time.Compare)
	if !firstEnd.After(lastStart) {
		return s, fmt.Errorf("the shards' measure windows do not overlap (the last one started %s, the first one ended %s): they did not run at the same time; start every shard with the same --start-at",
			lastStart.UTC().Format(time.RFC3339Nano), firstEnd.UTC().Format(time.RFC3339Nano))
	}
	s.overlap = firstEnd.Sub(lastStart)
	return s, nil
}

// addIterations adds b's counts to a; a count some shard lacks is
// unknown in the sum.
func addIterations(a *Iterations, b Iterations) {
	a.Offered += b.Offered
	a.Started += b.Started
	a.Completed += b.Completed
	a.Succeeded += b.Succeeded
	a.Dropped += b.Dropped
	a.Counted &= b.Counted
}

// mergeHists merges one histogram of every run; nil when no run has it.
func mergeHists(runs []Run, of func(*Run) *hist.Histogram) *hist.Histogram {
	var out *hist.Histogram
	for i := range runs {
		addHist(&out, of(&runs[i]))
	}
	return out
}

// addHist merges h into *into, a copy of h when *into is nil.
func addHist(into **hist.Histogram, h *hist.Histogram) {
	switch {
	case h == nil:
	case *into == nil:
		*into = h.Clone()
	default:
		(*into).Merge(h)
	}
}

// mergeSteps sums the steps by name, in the order they first appear.
func mergeSteps(runs []Run) []Step {
	var out []Step
	for i := range runs {
		for _, s := range runs[i].Steps {
			j := slices.IndexFunc(out, func(o Step) bool { return o.Name == s.Name })
			if j < 0 {
				out, j = append(out, Step{Name: s.Name}), len(out)
			}
			o := &out[j]
			o.Requests += s.Requests
			o.Failed += s.Failed
			addHist(&o.Latency, s.Latency)
		}
	}
	return out
}

var errorOrder = []string{ErrStatus, ErrExpect, ErrTimeout, ErrConnection}

// mergeErrors sums the failed requests by step and class, keeping the
// first shard's sample message, in step order, then class order.
func mergeErrors(runs []Run, steps []Step) []ErrorClass {
	var out []ErrorClass
	for i := range runs {
		out = addErrors(out, runs[i].Errors)
	}
	stepAt := func(name string) int {
		return slices.IndexFunc(steps, func(s Step) bool { return s.Name == name })
	}
	slices.SortStableFunc(out, func(a, b ErrorClass) int {
		return cmp.Or(cmp.Compare(stepAt(a.Step), stepAt(b.Step)),
			cmp.Compare(slices.Index(errorOrder, a.Class), slices.Index(errorOrder, b.Class)))
	})
	return out
}

// addErrors adds errs to out by step and class, keeping the first sample.
func addErrors(out, errs []ErrorClass) []ErrorClass {
	for _, e := range errs {
		if j := slices.IndexFunc(out, func(o ErrorClass) bool { return o.Class == e.Class && o.Step == e.Step }); j >= 0 {
			out[j].Count += e.Count
			out[j].Sample = cmp.Or(out[j].Sample, e.Sample)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// foldResources is the runs' CPU folded by cpu and their largest peak
// memory; nil when none measured either.
func foldResources(runs []Run, cpu func(sum, v float64) float64) *Resources {
	var out Resources
	for i := range runs {
		if r := runs[i].Resources; r != nil {
			out.CPUSeconds = cpu(out.CPUSeconds, r.CPUSeconds)
			out.PeakRSSBytes = max(out.PeakRSSBytes, r.PeakRSSBytes)
		}
	}
	if out == (Resources{}) {
		return nil
	}
	return &out
}

func add(a, b float64) float64 { return a + b }

// mergeNotes keeps every shard's notes, once for a note all shards have
// and with the shards it came from otherwise, after a note on the window.
func mergeNotes(runs []Run, s span) []string {
	n := len(runs)
	out := []string{fmt.Sprintf("merged from %d shards, which measured together for %.2f s of the %.2f s window",
		n, s.overlap.Seconds(), s.end.Sub(s.start).Seconds())}
	var order []string
	from := map[string][]string{} // the shards (from 1) a note came from
	for i := range runs {
		for _, note := range runs[i].Notes {
			order = AppendNew(order, note)
			from[note] = AppendNew(from[note], fmt.Sprint(i+1))
		}
	}
	for _, note := range order {
		if idx := from[note]; len(idx) < n {
			note = fmt.Sprintf("%s %s of %d: %s", plural.Of(len(idx), "shard", "shards"), strings.Join(idx, ", "), n, note)
		}
		out = append(out, note)
	}
	return out
}

// envDifference is a note when the shards ran on different kinds of
// machine; the merged file's env is the first shard's.
func envDifference(shards []*File) string {
	var kinds []string
	for _, f := range shards {
		kinds = AppendNew(kinds, f.Env.Fingerprint())
	}
	if len(kinds) < 2 {
		return ""
	}
	return fmt.Sprintf("the shards ran on %d kinds of machine (%s); env is shard 1's", len(kinds), strings.Join(kinds, " | "))
}
