package pipeline

import (
	"context"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A rolling baseline follows main down: ten changes of +1.5 % each pass
// their checks, and the window then holds the slower main. Creep compares
// the head also with older references (gate.creep.against): a gated
// metric beyond its floor the bad way against one is a warning, never a
// failure.

// creepReference is one older state of main to compare the head with.
type creepReference struct {
	name       string // "the window's oldest job", "v1.4"
	runs       []result.Run
	jobs       int
	definition string // the hash of the definition the runs measured
	tag        bool
}

// creep compares head with the references the policy names, for warnings
// and notes: a reference that cannot be read is a note, never a failure.
func creep(ctx context.Context, o CheckOptions, bl *baseline.File, head *result.File, p gate.Policy) ([]stats.Warning, []string) {
	g, ok := o.Policy.gate(o.Config)
	if !ok || bl == nil {
		return nil, nil
	}
	refs, notes := creepReferences(ctx, g.Creep.Against, o, bl)
	var warnings []stats.Warning
	for _, ref := range refs {
		w, note := compareCreep(ref, head, p)
		warnings = append(warnings, w...)
		if ref.tag {
			notes = append(notes, note) // the window's start is the baseline's own: only its warnings
		}
	}
	return warnings, notes
}

func creepReferences(ctx context.Context, against []string, o CheckOptions, bl *baseline.File) ([]creepReference, []string) {
	var refs []creepReference
	var notes []string
	for _, entry := range against {
		ref, note := windowStart(bl), ""
		if entry != config.CreepWindowStart {
			ref, note = lastTag(ctx, strings.TrimPrefix(entry, config.CreepTagPrefix), o)
		}
		if note != "" {
			notes = append(notes, note)
		}
		if ref.jobs > 0 {
			refs = append(refs, ref)
		}
	}
	return refs, notes
}

// windowStart is the oldest job of the window; none while the window
// holds a single job (it is the baseline itself).
func windowStart(bl *baseline.File) creepReference {
	if len(bl.Samples) == 0 || bl.Jobs() < 2 {
		return creepReference{}
	}
	first := bl.Samples[0]
	ref := creepReference{name: "the window's oldest job (" + shortCommit(first.Commit, first.Job) + ")", jobs: 1, definition: bl.DefinitionHash}
	for _, s := range bl.Samples {
		if s.Job == first.Job {
			ref.runs = append(ref.runs, result.Run{Index: len(ref.runs), Metrics: s.Metrics})
		}
	}
	return ref
}

// lastTag is the newest tag matching glob that the history of main has a
// job of (its commit, or a job recorded on the tag's ref); a note says why
// there is none.
func lastTag(ctx context.Context, glob string, o CheckOptions) (creepReference, string) {
	if o.Tags == nil {
		return creepReference{}, ""
	}
	hist, err := baseline.ReadHistoryBeside(ctx, o.Baseline)
	if err != nil {
		return creepReference{}, report.CreepUnread(glob, err)
	}
	if hist == nil {
		return creepReference{}, ""
	}
	tags, err := o.Tags.Tags(ctx, glob)
	if err != nil {
		return creepReference{}, "" // no repository, or no tags fetched: nothing to compare with
	}
	for _, tag := range tags {
		if ref, ok := tagJobs(hist, tag); ok {
			return ref, ""
		}
	}
	return creepReference{}, ""
}

func tagJobs(h *baseline.History, tag baseline.Tag) (creepReference, bool) {
	ref := creepReference{name: tag.Name + " (" + shortCommit(tag.Commit, "") + ")", tag: true}
	for _, j := range h.Jobs {
		if j.AB == nil && (j.Commit == tag.Commit || j.Ref == "refs/tags/"+tag.Name) {
			ref.runs = append(ref.runs, j.Results()...)
			ref.definition = j.DefinitionHash
			ref.jobs++
		}
	}
	return ref, ref.jobs > 0
}

func compareCreep(ref creepReference, head *result.File, p gate.Policy) ([]stats.Warning, string) {
	if ref.definition != "" && head.DefinitionHash != "" && ref.definition != head.DefinitionHash {
		return nil, report.CreepNote(ref.name, 0, nil, true)
	}
	p.BaselineJobs = ref.jobs
	v := gate.Judge(ref.runs, head.Runs, p)
	var warnings []stats.Warning
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == gate.MetricRegression {
			warnings = append(warnings, stats.Warn(gate.WarnCreep, report.CreepWarning(ref.name, len(ref.runs), f)))
		}
	}
	return warnings, report.CreepNote(ref.name, len(ref.runs), v.Findings, false)
}

func shortCommit(commit, job string) string {
	if commit == "" {
		return "job " + job
	}
	return short(commit)
}
