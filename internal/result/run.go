// Package result owns the measurement model: a File of Runs with their
// counts, histograms and summary metrics, in a versioned JSON form, and
// how runs combine (phases, windows, shards). The load engine and the
// importers write it; baselines, statistics and reports read it.
package result

import (
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
)

const SchemaVersion = 1

// File is one benchmark's result: what `tailgate run` and `tailgate import`
// write, and what `check --result` and `compare` read.
type File struct {
	Schema    int    `json:"schema"`
	Benchmark string `json:"benchmark"`
	// DefinitionHash identifies the benchmark definition (config) that
	// produced the runs; results of different definitions are not comparable.
	DefinitionHash string    `json:"definition_hash,omitempty"`
	Source         string    `json:"source"` // "tailgate", or the imported format ("k6-summary-export", …)
	Created        time.Time `json:"created"`
	Env            Env       `json:"env"`
	// TargetLog is the file holding the output of the target tailgate
	// started for these runs (its stdout and stderr), if it started one.
	TargetLog string `json:"target_log,omitempty"`
	// Shard says which share of a sharded load the runs hold (`tailgate
	// run --shard I/N`); nil for a whole load.
	Shard *Shard `json:"shard,omitempty"`
	// Merged says that `tailgate merge` combined the runs from shard
	// files; nil otherwise.
	Merged *Merged `json:"merged,omitempty"`
	Runs   []Run   `json:"runs"`
}

type Env struct {
	CPUModel        string `json:"cpu_model,omitempty"`
	Cores           int    `json:"cores,omitempty"`
	OS              string `json:"os,omitempty"`
	Arch            string `json:"arch,omitempty"`
	GoVersion       string `json:"go_version,omitempty"`
	TailgateVersion string `json:"tailgate_version,omitempty"`
}

// Run is one sample: one reset → verify → drain → warm-up → measure cycle
// (or one imported file). A figure the source did not measure is absent
// from the JSON, never zero.
type Run struct {
	Index   int       `json:"index"`
	Started time.Time `json:"started,omitzero"`
	Window  float64   `json:"window_s,omitzero"` // measured, warm-up excluded
	// Busy (closed model) is the time iterations/s and requests/s are
	// rated over: the completed iterations over the sum of each virtual
	// user's own rate (its iterations over its busy time). Zero: Window.
	Busy float64 `json:"busy_s,omitzero"`
	// Model is "open" or "closed" for tailgate runs, "phases" for a run of
	// several phases (load.phases); empty for imported runs.
	Model       string          `json:"model,omitempty"`
	OfferedRate float64         `json:"offered_rate,omitempty"`
	Iterations  Iterations      `json:"iterations,omitzero"`
	Requests    Requests        `json:"requests,omitzero"`
	Errors      []ErrorClass    `json:"errors,omitempty"`
	Steps       []Step          `json:"steps,omitempty"`
	Latency     *hist.Histogram `json:"latency,omitempty"`
	// IterationLatency holds whole-iteration latency, timed from the
	// scheduled start in the open model (no coordinated omission).
	IterationLatency *hist.Histogram `json:"iteration_latency,omitempty"`
	// ScheduleLag holds how late iterations started after their scheduled
	// time (open model only).
	ScheduleLag *hist.Histogram `json:"schedule_lag,omitempty"`
	Resources   *Resources      `json:"resources,omitempty"`
	// Parts is what each measured part of the request path used
	// (target.measure; the target's own /proc counters as part "target"),
	// Counters each work counter's growth by "<source>.<counter>", and
	// Statements each database statement's (reported, never gated); one
	// that could not be read is absent, with a note.
	Parts      []Part             `json:"parts,omitempty"`
	Counters   map[string]float64 `json:"counters,omitempty"`
	Statements []Statement        `json:"statements,omitempty"`
	// Metrics are the summary figures the verdict reads, by metric key.
	// Only measured metrics are present.
	Metrics map[string]float64 `json:"metrics"`
	// SetByLoad lists the metric keys whose value the load fixes by
	// construction (open-loop iterations/s below saturation is the offered
	// rate): they are reported, never gated, never claimed as detectable.
	SetByLoad []string `json:"set_by_load,omitempty"`
	// Notes are caveats about this run ("file was cut at line 812").
	Notes []string `json:"notes,omitempty"`
	// Overlap is, in a merged run, how many seconds every shard measured
	// at once (Window spans the first shard's start to the last one's end).
	Overlap float64 `json:"overlap_s,omitzero"`
	// Phases holds each phase of a run of several (load.phases), in the
	// order they ran; the Run's metrics are taken from them (MergePhases).
	Phases []Phase `json:"phases,omitempty"`
}

const ModelPhases = "phases"

// WithoutHistograms is the run without its latency histograms (its own,
// its steps' and its phases'), its counts and metrics kept: a copy for
// what reads only those, where holding the histograms costs memory.
func (r Run) WithoutHistograms() Run {
	r.Latency, r.IterationLatency, r.ScheduleLag = nil, nil, nil
	r.Steps = slices.Clone(r.Steps)
	for i := range r.Steps {
		r.Steps[i].Latency = nil
	}
	r.Phases = slices.Clone(r.Phases)
	for i := range r.Phases {
		r.Phases[i].Run = r.Phases[i].Run.WithoutHistograms()
	}
	return r
}

// Phase is one phase of a run: its name and everything it measured.
// Skipped marks a phase an A/B block left out (its gated metrics had all
// decided): its Run measured nothing, so its metrics are absent from the
// merged run.
type Phase struct {
	Name    string `json:"name"`
	Skipped bool   `json:"skipped,omitzero"`
	Run
}

// SkippedPhase is the record of a phase a block left out: it sent no
// request and ran no iteration (counts of zero, so that the merged run's
// rates are those of the phases measured), and measured no metric.
func SkippedPhase(name, model string) Phase {
	return Phase{Name: name, Skipped: true, Run: Run{Model: model, Metrics: map[string]float64{},
		Iterations: Iterations{Counted: CountAll}, Requests: Requests{Counted: CountRequests}}}
}

// Iterations counts lifecycles (one pass through a scenario's steps).
// Its JSON (see iterations.go) holds the counts Counted names and the
// non-zero Offered and Dropped; with none of them it is left out.
type Iterations struct {
	// Offered is the number of iterations the schedule asked for (open model).
	Offered   int64
	Started   int64
	Completed int64
	// Succeeded iterations passed every step's expectations.
	Succeeded int64
	// Dropped iterations were due but could not start because max_inflight
	// iterations were already running: offered work never started.
	Dropped int64
	// Counted says which of Started, Completed and Succeeded the source
	// counts: all of them for tailgate's own runs, some or none for an
	// imported file. A count not counted is unknown, not zero.
	Counted Counts
}

// Requests counts HTTP calls. Its JSON (see requests.go) holds the counts
// Counted names; with neither it is left out.
type Requests struct {
	Total  int64
	Failed int64
	// Counted says which of Total and Failed the source counts: both for
	// tailgate's own runs, one or none for some imported summaries (ab -e
	// holds percentiles only, a k6 summary without http_reqs no total). A
	// count not counted is unknown, not zero.
	Counted RequestCounts
}

const (
	ErrStatus     = "unexpected_status"
	ErrExpect     = "expectation_failed"
	ErrTimeout    = "timeout"
	ErrConnection = "connection"
)

// ErrorClass counts the failed requests of one class on one step, with one
// sample message such as `409 INVALID ACTION`.
type ErrorClass struct {
	Class  string `json:"class"`
	Step   string `json:"step,omitempty"`
	Count  int64  `json:"count"`
	Sample string `json:"sample,omitempty"`
}

// Step holds the figures of one named step across all iterations of a run.
type Step struct {
	Name     string          `json:"name"`
	Requests int64           `json:"requests"`
	Failed   int64           `json:"failed"`
	Latency  *hist.Histogram `json:"latency,omitempty"`
	// Metrics holds the step's summary figures when only summaries are
	// known (imported files); keys as for Run.Metrics.
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// Resources is what the target's process tree used during the measure
// window. A figure that was not measured is 0 here and left out of the
// JSON and of the metrics: absent, never a measured zero.
type Resources struct {
	CPUSeconds   float64 `json:"cpu_s,omitempty"`
	PeakRSSBytes int64   `json:"peak_rss_bytes,omitempty"`
}

func (r *Run) Value(key string) (float64, bool) {
	v, ok := r.Metrics[key]
	return v, ok
}

// Values returns a metric's values of the runs that carry it, in run
// order: runs that did not measure it are left out, never read as zero.
func Values(runs []Run, key string) []float64 {
	var out []float64
	for i := range runs {
		if v, ok := runs[i].Value(key); ok {
			out = append(out, v)
		}
	}
	return out
}
