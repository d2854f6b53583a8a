package pipeline

import (
	"errors"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// HistoryOptions are the options of History.
type HistoryOptions struct {
	// Config, when given, supplies the gated metrics, gate.min_effect and
	// gate.alpha; nil for the defaults.
	Config *config.Config
	// Path is the history file.
	Path string
	// Seed makes the permutation tests repeatable; the same history and
	// seed give the same change points.
	Seed uint64
}

// History reads main's history and finds the change points of each gated
// metric. A missing or unreadable history is bad input: nothing is
// measured, so there is no environment to break.
func History(o HistoryOptions) (report.HistoryInput, error) {
	h, err := baseline.ReadHistory(o.Path)
	if errors.Is(err, baseline.ErrNotFound) {
		return report.HistoryInput{}, Usage.Errorf("%v: record jobs on main first (tailgate baseline record appends to it)", err)
	}
	if err != nil {
		return report.HistoryInput{}, Usage.Wrap(err)
	}
	jobs := historyJobs(h)
	p := gate.HistoryPolicy{Seed: o.Seed}
	if o.Config != nil {
		p.Alpha, p.Metrics, p.MinEffect = o.Config.Gate.Alpha, o.Config.Gate.Metrics, o.Config.Gate.MinEffect
	}
	v, err := gate.AnalyzeHistory(jobs, p)
	if err != nil {
		return report.HistoryInput{}, Usage.Wrap(err)
	}
	return report.HistoryInput{Name: historyName(h, o), Source: o.Path, Jobs: jobs, Verdict: v}, nil
}

// historyJobs are the history's jobs as the analysis reads them.
func historyJobs(h *baseline.History) []gate.HistoryJob {
	jobs := make([]gate.HistoryJob, len(h.Jobs))
	for i, j := range h.Jobs {
		hj := gate.HistoryJob{Commit: j.Commit, Ref: j.Ref, Job: j.Job, Time: j.Time, Runner: j.Runner, Definition: j.DefinitionHash,
			Tool: strings.TrimSpace(j.Env.GoVersion + " tailgate " + j.Env.TailgateVersion), Runs: j.Results()}
		if j.Env.Cores != 0 {
			hj.Machine = j.Env.Fingerprint()
		}
		jobs[i] = hj
	}
	return jobs
}

func historyName(h *baseline.History, o HistoryOptions) string {
	if o.Config != nil {
		return o.Config.Name
	}
	if n := len(h.Jobs); n > 0 {
		return h.Jobs[n-1].Benchmark
	}
	return ""
}
