package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Hints say what the runs show about the benchmark itself (an idle CPU, an overloaded open phase, a
// part that saw a share of its server), each with what to try.

// lowBusyShare is the share of one core below which a service's CPU is mostly idle: its CPU/iteration then measures a
// small part of the work (an fsync-bound service measured 9 %, issue 38).
const lowBusyShare = 0.25

// mostDropped is the share of offered iterations above which an open phase
// measured an overloaded service rather than the rate it was asked for.
const mostDropped = 0.5

// phaseLoad is what one phase (or a run without phases) of the head runs did, summed over the runs.
type phaseLoad struct {
	name, model string
	window      float64 // seconds measured
	// cpu is the CPU seconds over cpuWindow, the windows that measured
	// it, inFlight the part with an iteration in flight.
	cpu, cpuWindow, inFlight  float64
	offered, dropped, started int64
	// offeredRate is the sum of the runs' asked rates, over runs runs.
	offeredRate, runs float64
	units             string // what the runs are: "runs", or "blocks"
}

// phaseLoads sums the head runs' phases by name, in order of first run
// (a run without phases is one unnamed phase; skipped ones left out).
func phaseLoads(runs []result.Run) []phaseLoad {
	var out []phaseLoad
	add := func(name string, r result.Run) {
		i := slices.IndexFunc(out, func(l phaseLoad) bool { return l.name == name })
		if i < 0 {
			i, out = len(out), append(out, phaseLoad{name: name, model: r.Model})
		}
		l, it := &out[i], r.Iterations
		if r.Resources != nil && r.Resources.CPUSeconds > 0 && r.Window > 0 {
			l.cpu, l.cpuWindow, l.inFlight = l.cpu+r.Resources.CPUSeconds, l.cpuWindow+r.Window, l.inFlight+inFlight(r)
		}
		// offered as the dropped metric counts it
		l.window, l.offered, l.dropped, l.started = l.window+r.Window, l.offered+it.Started+it.Dropped, l.dropped+it.Dropped, l.started+it.Started
		l.offeredRate, l.runs = l.offeredRate+r.OfferedRate, l.runs+1
	}
	for _, r := range runs {
		if len(r.Phases) == 0 {
			add("", r)
			continue
		}
		for _, p := range r.Phases {
			if !p.Skipped {
				add(p.Name, p.Run)
			}
		}
	}
	return out
}

// hints are the hints of the head runs, one per phase that shows one,
// then one per measured part that saw only a share of its server.
func hints(in Input) []string {
	var out []string
	for _, l := range phaseLoads(in.Head) {
		l.units = runWord(in, 2)
		if h := cmp.Or(droppedHint(l), idleHint(l)); h != "" {
			out = append(out, h)
		}
	}
	return append(out, partShareHints(in)...)
}

// wholeShare is the share of its server's CPU from which a part selected
// by process name or command line is taken to hold the server's work.
const wholeShare = 90.0

// partShareHints say, for each part below wholeShare of its server's CPU, how much it had and what
// the rest is: work no side's path CPU holds (a pool that reconnects measured 5 %, issue 36).
func partShareHints(in Input) []string {
	var out, parts []string // parts: those with a share of their server's CPU in any run or phase, sorted
	for _, r := range slices.Concat(in.Base, in.Head) {
		for _, k := range result.KeysOf([]result.Run{r}, mapped(r.Phases, func(p result.Phase) result.Run { return p.Run })) {
			if p, ok := result.PartOfShareKey(k); ok && !slices.Contains(parts, p) {
				parts = append(parts, p)
			}
		}
	}
	slices.Sort(parts)
	for _, part := range parts {
		key := result.PartShareKey(part)
		base, head := medianOfRuns(in.Base, key), medianOfRuns(in.Head, key)
		if !(base < wholeShare) && !(head < wholeShare) { // NaN: not measured
			continue
		}
		out = append(out, fmt.Sprintf("The processes of part %s had %s (the process tree they belong to, ended processes included): "+
			"the rest — the server's other databases or clients (in an A/B job the other side's), its own processes, and processes that ended between two samples, as a pool that reconnects makes them — is in no side's path CPU/iteration. "+
			"To measure the server whole, give each side a server of its own and its pid_file, or both sides the whole server's (docs/footprint.md).",
			part, sidesText(in, base, head)))
	}
	return out
}

// medianOfRuns is the median of the runs' figure key, each run's own or
// its first phase's that has it; NaN where none had it.
func medianOfRuns(runs []result.Run, key string) float64 {
	var vals []float64
	for _, r := range runs {
		v, ok := r.Metrics[key]
		for _, p := range r.Phases {
			if pv, has := p.Run.Metrics[key]; !ok && has && !p.Skipped {
				v, ok = pv, true
			}
		}
		if ok {
			vals = append(vals, v)
		}
	}
	return stats.Median(vals)
}

// sidesText words a share per side: "12 % of their server's CPU on the base and 14 % on the head", or one side's alone.
func sidesText(in Input, base, head float64) string {
	pct := func(v float64) string { return fmt.Sprintf("%.0f %%", v) }
	const of = " of their server's CPU"
	switch {
	case math.IsNaN(head):
		return pct(base) + of + " on the base"
	case !math.IsNaN(base):
		return pct(base) + of + " on the base and " + pct(head) + " on the head"
	case len(in.Base) > 0:
		return pct(head) + of + " on the head"
	}
	return pct(head) + of
}

// where names a phase in a hint: "the latency phase", or "the runs" (the
// blocks of an A/B job) where they have no phases.
func (l phaseLoad) where() string {
	if l.name == "" {
		return "the " + cmp.Or(l.units, "runs")
	}
	return "the " + l.name + " phase"
}

// busy is the service's CPU over the time iterations were in flight, as a share of one core; counting only that time
// keeps an open phase far below capacity from reading as idle (a Flask app: 15 % of its windows, 40 % of its
// iterations' time). NaN where no window measured it.
func (l phaseLoad) busy() float64 {
	if l.cpuWindow <= 0 {
		return math.NaN()
	}
	return l.cpu / l.inFlight
}

// inFlight is the time of a run's window an iteration could be in
// flight: its iterations' durations summed, capped at the window.
func inFlight(r result.Run) float64 {
	h := r.IterationLatency
	if h == nil || h.Count() == 0 {
		return r.Window
	}
	return min(r.Window, float64(h.Count())*h.Mean().Seconds())
}

// droppedHint says when an open phase dropped most of its offered work, and what to try.
func droppedHint(l phaseLoad) string {
	if l.model != result.ModelOpen || l.offered <= 0 || float64(l.dropped) <= mostDropped*float64(l.offered) {
		return ""
	}
	h := fmt.Sprintf("In %s, %.0f %% of the offered iterations were dropped (max_inflight iterations were already running): the figures describe an overloaded service, not the rate asked for.",
		l.where(), 100*float64(l.dropped)/float64(l.offered))
	if l.window > 0 && l.offeredRate > 0 {
		h += fmt.Sprintf(" tailgate started %.1f iterations/s of the %.1f/s asked.", float64(l.started)/l.window, l.offeredRate/l.runs)
	}
	h += " Try a rate near what the service completes"
	if share := l.busy(); share < lowBusyShare {
		h += fmt.Sprintf("; its CPU was busy only %s of the time (of one core), so it waits on something: if on storage (fsync), put its data on a RAM disk (tmpfs) for the benchmark; if it serves requests concurrently, a higher max_inflight", busyText(share))
	} else {
		h += ", or a higher max_inflight if the service can take more at once"
	}
	return h + "."
}

// idleHint says when the service's CPU was busy only a small share of a phase's windows, and what to try.
func idleHint(l phaseLoad) string {
	share := l.busy()
	if !(share < lowBusyShare) {
		return ""
	}
	h := fmt.Sprintf("The service's CPU was busy only %s of the time iterations were in flight in %s (of one core): it spends most of each iteration waiting, so CPU/iteration measures a small part of the work and latency mostly the wait. If it waits on storage (fsync), put its data on a RAM disk (tmpfs) for the benchmark",
		busyText(share), l.where())
	if l.model == result.ModelOpen {
		h += "; a higher rate gives each window more work to measure"
	}
	return h + "."
}

// busyText prints a CPU share in percent, with a decimal below 10 % so that a mostly idle service does not read as 0 %.
func busyText(share float64) string { return fmt.Sprintf("%.*f %%", b2i(share < 0.1), 100*share) }

// notesOf are the notes a report shows after the findings' own: the
// caller's, how an A/B job ran, what the runs noted, then the hints.
func notesOf(in Input) []string {
	return slices.Concat(in.Notes, in.AB.notes(in), runNotes(in), hints(in))
}

// The fewest requests for a percentile to be more than the slowest
// request: below 100 a p99 is the max, below 20 a p95 is.
const (
	p99LeastSamples = 100
	p95LeastSamples = 20
)

// warningsOf are the verdict's warnings and the report's own, in that order: an A/B job's closed windows that held
// few iterations per virtual user, and head runs whose percentiles rest on so few requests that they are the max
// and move with one slow request.
func warningsOf(in Input) []string {
	out, least := Warnings(in.Verdict), int64(-1)
	if w := in.AB.fewIterationsWarning(in); w != "" {
		out = append(out, w)
	}
	for _, r := range in.Head {
		if r.Latency != nil && (least < 0 || r.Latency.Count() < least) {
			least = r.Latency.Count()
		}
	}
	switch {
	case least < 0 || least >= p99LeastSamples:
	case least < p95LeastSamples:
		out = append(out, fmt.Sprintf("latency p95 and p99 rest on as few as %d requests in a run (p95 needs %d, p99 %d to be more than the slowest request): read them as the max; measure longer or at a higher rate",
			least, p95LeastSamples, p99LeastSamples))
	default:
		out = append(out, fmt.Sprintf("latency p99 rests on as few as %d requests in a run (fewer than %d): it is the slowest request, the max; measure longer or at a higher rate to gate or read it",
			least, p99LeastSamples))
	}
	return out
}
