package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// Hints say what the head runs show about the benchmark itself, where a
// reader would otherwise have to find it: a service whose CPU sat mostly
// idle, or an open phase that dropped most of the work it was offered.
// Each says what it saw and what to try.

// lowBusyShare is the share of one core below which a service's CPU is
// called mostly idle over a window: the service then spends most of each
// iteration waiting (storage, locks, sleeps, another service), so its
// CPU/iteration measures a small part of the work and its latency mostly
// the wait. An fsync-bound service measured 9 % (issue 38).
const lowBusyShare = 0.25

// mostDropped is the share of offered iterations above which an open phase
// measured an overloaded service rather than the rate it was asked for.
const mostDropped = 0.5

// phaseLoad is what one phase (or a run without phases) of the head runs
// did, summed over the runs.
type phaseLoad struct {
	name, model string
	window      float64 // seconds measured
	// cpu is the service's CPU seconds over cpuWindow, the seconds of the
	// windows that measured it.
	cpu, cpuWindow            float64
	offered, dropped, started int64
	// offeredRate is the sum of the runs' asked rates, over runs runs.
	offeredRate, runs float64
	units             string // what the runs are: "runs", or "blocks"
}

// phaseLoads sums the head runs' phases by name (a run without phases is
// one unnamed phase), in the order they first ran; skipped phases are left
// out.
func phaseLoads(runs []result.Run) []phaseLoad {
	var out []phaseLoad
	add := func(name string, r result.Run) {
		i := slices.IndexFunc(out, func(l phaseLoad) bool { return l.name == name })
		if i < 0 {
			out = append(out, phaseLoad{name: name, model: r.Model})
			i = len(out) - 1
		}
		l := &out[i]
		l.window += r.Window
		if r.Resources != nil && r.Resources.CPUSeconds > 0 && r.Window > 0 {
			l.cpu += r.Resources.CPUSeconds
			l.cpuWindow += r.Window
		}
		l.offered += r.Iterations.Started + r.Iterations.Dropped // as the dropped metric counts it
		l.dropped += r.Iterations.Dropped
		l.started += r.Iterations.Started
		l.offeredRate += r.OfferedRate
		l.runs++
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

// hints are the hints of the head runs, one per phase that shows one.
func hints(in Input) []string {
	var out []string
	for _, l := range phaseLoads(in.Head) {
		l.units = runWord(in, 2)
		if h := droppedHint(l); h != "" {
			out = append(out, h)
		} else if h := idleHint(l); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// where names a phase in a hint: "the latency phase", or "the runs" (the
// blocks of an A/B job) where they have no phases.
func (l phaseLoad) where() string {
	if l.name == "" {
		return "the " + cmp.Or(l.units, "runs")
	}
	return "the " + l.name + " phase"
}

// busy is the service's CPU time over the windows that measured it, as a
// share of one core; not measured where no window measured it.
func (l phaseLoad) busy() (share float64, measured bool) {
	if l.cpuWindow <= 0 {
		return 0, false
	}
	return l.cpu / l.cpuWindow, true
}

// droppedHint says when an open phase dropped most of the work it was
// offered, and what to try; with the CPU's share when it was low (the
// service waited rather than computed).
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
	if share, ok := l.busy(); ok && share < lowBusyShare {
		h += fmt.Sprintf("; its CPU was busy only %s of the time (of one core), so it waits on something: if on storage (fsync), put its data on a RAM disk (tmpfs) for the benchmark; if it serves requests concurrently, a higher max_inflight", busyText(share))
	} else {
		h += ", or a higher max_inflight if the service can take more at once"
	}
	return h + "."
}

// idleHint says when the service's CPU was busy only a small share of a
// phase's windows, and what to try.
func idleHint(l phaseLoad) string {
	share, ok := l.busy()
	if !ok || share >= lowBusyShare {
		return ""
	}
	h := fmt.Sprintf("The service's CPU was busy only %s of the windows of %s (of one core): it spends most of each iteration waiting, so CPU/iteration measures a small part of the work and latency mostly the wait. If it waits on storage (fsync), put its data on a RAM disk (tmpfs) for the benchmark",
		busyText(share), l.where())
	if l.model == result.ModelOpen {
		h += "; a higher rate gives each window more work to measure"
	}
	return h + "."
}

// busyText prints a CPU share in percent, with a decimal below 10 % so
// that a mostly idle service does not read as 0 %.
func busyText(share float64) string {
	if share < 0.1 {
		return fmt.Sprintf("%.1f %%", 100*share)
	}
	return fmt.Sprintf("%.0f %%", 100*share)
}

// notesOf are the notes a report shows after the findings' own: the
// caller's, how an A/B job ran, what the runs noted, then the hints.
func notesOf(in Input) []string {
	return append(append(append(slices.Clone(in.Notes), in.AB.notes(in)...), runNotes(in)...), hints(in)...)
}
