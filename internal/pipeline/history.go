package pipeline

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
)

type HistoryOptions struct {
	Config *config.Config // when given, the gated metrics, gate.min_effect and gate.alpha
	Path   string
	Seed   uint64 // the permutation tests': the same history and seed give the same change points
	Since  Since  // where the chain's creep starts; zero for the whole chain
}

// Since names where creep is counted from: the commit after Commit (a
// tag's, resolved by the caller), or the first link at or after Time;
// Name says it ("v1.4", "2026-11-01").
type Since struct {
	Commit string
	Time   time.Time
	Name   string
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
	links, spans := gate.SplitChain(chainLinks(h))
	p := gate.HistoryPolicy{Seed: o.Seed}
	if o.Config != nil {
		g := gateOf(o.Config)
		p.Alpha, p.Metrics, p.MinEffect = g.Alpha, g.Metrics, g.MinEffect
	}
	v, err := gate.AnalyzeHistory(jobs, p)
	if err != nil {
		return report.HistoryInput{}, Usage.Wrap(err)
	}
	since, start, from, err := sinceLink(links, spans, o.Since)
	if err != nil {
		return report.HistoryInput{}, err
	}
	return report.HistoryInput{Name: historyName(h, o), Source: o.Path, Jobs: jobs, Verdict: v,
		Chain: gate.AnalyzeChainFrom(links, spans, since, start, from, p)}, nil
}

// historyJobs are the history's absolute jobs (those with runs).
func historyJobs(h *baseline.History) []gate.HistoryJob {
	var jobs []gate.HistoryJob
	for _, j := range h.Jobs {
		if j.AB != nil {
			continue
		}
		hj := gate.HistoryJob{Commit: j.Commit, Ref: j.Ref, Job: j.Job, Time: j.Time, Runner: j.Runner, Definition: j.DefinitionHash,
			Tool: strings.TrimSpace(j.Env.GoVersion + " tailgate " + j.Env.TailgateVersion), Runs: j.Results()}
		if j.Env.Cores != 0 {
			hj.Machine = j.Env.Fingerprint()
		}
		jobs = append(jobs, hj)
	}
	return jobs
}

// chainLinks are the history's A/B entries, oldest first, links and
// spans (gate.SplitChain).
func chainLinks(h *baseline.History) []gate.ChainLink {
	var links []gate.ChainLink
	for _, j := range h.Jobs {
		if j.AB == nil {
			continue
		}
		l := gate.ChainLink{Commit: j.Commit, Parent: j.AB.Parent, Job: j.Job, Time: j.Time, Metrics: map[string]gate.LinkMetric{}}
		for _, m := range j.AB.Metrics {
			l.Metrics[m.Key] = gate.LinkMetric{Change: m.Change, Lo: m.Lo, Hi: m.Hi, Outcome: gate.MetricOutcome(m.Outcome)}
		}
		links = append(links, l)
	}
	return links
}

// sinceLink is the index of the first link the creep counts, its start
// commit when no link's parent is it ("" otherwise) and how to name it.
// A commit older than the chain is its start when a span (the Action's
// creep_since) was measured from it: the creep then counts every link.
// A commit neither holds is bad input.
func sinceLink(links, spans []gate.ChainLink, s Since) (since int, start, from string, err error) {
	switch {
	case s.Commit != "":
		for i, l := range links {
			switch s.Commit {
			case l.Commit:
				return i + 1, "", s.Name, nil
			case l.Parent:
				return i, "", s.Name, nil
			}
		}
		if slices.ContainsFunc(spans, func(sp gate.ChainLink) bool { return sp.Parent == s.Commit }) {
			return 0, s.Commit, s.Name, nil
		}
		return 0, "", "", Usage.Errorf("--since %s: no link of main's chain is of commit %.12s or has it as its parent, and no span starts from it", s.Name, s.Commit)
	case !s.Time.IsZero():
		for i, l := range links {
			if !l.Time.Before(s.Time) {
				return i, "", s.Name, nil
			}
		}
		return len(links), "", s.Name, nil
	}
	if len(links) == 0 {
		return 0, "", "", nil
	}
	return 0, "", short(links[0].Parent), nil
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
