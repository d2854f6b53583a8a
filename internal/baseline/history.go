package baseline

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The history of main: one line of JSON per recorded job, oldest first,
// beside the baseline (baselines/<name>.history.jsonl), kept far longer
// than the baseline's window, so `tailgate history` can say which commits
// shifted a metric.

// HistorySchemaVersion is the version of each history line this build
// writes. Version 2 added the A/B link (Job.AB); version 1 lines are read
// as they are.
const HistorySchemaVersion = 2

// Retention: the last DefaultHistoryJobs jobs (gate.history.jobs), and
// never more than MaxHistoryBytes (a line is about 3 kB).
const (
	DefaultHistoryJobs = 500
	MaxHistoryBytes    = 8 << 20
)

// ErrHistoryCorrupt: the history file exists but a line is not one this
// build can read.
var ErrHistoryCorrupt = errors.New("history file unreadable")

// Job is one recorded job of the history: what it measured, where, and
// its runs' summary figures.
type Job struct {
	Schema         int        `json:"schema"`
	Benchmark      string     `json:"benchmark"`
	Commit         string     `json:"commit,omitempty"`
	Ref            string     `json:"ref,omitempty"`
	Job            string     `json:"job"`
	Time           time.Time  `json:"time"`
	DefinitionHash string     `json:"definition_hash,omitempty"`
	Env            result.Env `json:"env"`
	// Runner names the machine image (GitHub's ImageOS and ImageVersion):
	// a new image is not a code change. Empty when unknown.
	Runner    string               `json:"runner,omitempty"`
	Runs      []map[string]float64 `json:"runs"`                  // each run's metrics
	SetByLoad []string             `json:"set_by_load,omitempty"` // never gated
	// AB is the job's same-runner A/B of Commit against its parent, a link
	// of main's chain; such a job keeps no Runs.
	AB *Comparison `json:"ab,omitempty"`
}

// Comparison is a commit judged against its parent by a same-runner A/B.
type Comparison struct {
	// Parent is the commit the A/B's base side built.
	Parent string `json:"parent"`
	// Metrics are the gated metrics the A/B estimated.
	Metrics []ComparedMetric `json:"metrics"`
}

// ComparedMetric is one gated metric's paired estimate.
type ComparedMetric struct {
	Key string `json:"key"`
	// Change is the commit against its parent, signed as the values move
	// (percent, or points for rates); Lo and Hi its 95 % bounds.
	Change  float64 `json:"change"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	Outcome string  `json:"outcome"` // pass, regression, improvement or inconclusive
}

// Results returns the job's runs as runs, which is all the analysis
// needs of them.
func (j Job) Results() []result.Run {
	runs := make([]result.Run, len(j.Runs))
	for i, m := range j.Runs {
		runs[i] = result.Run{Index: i, Metrics: copyMetrics(m), SetByLoad: j.SetByLoad}
	}
	return runs
}

// History is the jobs of a history file, oldest first.
type History struct {
	Jobs []Job
}

// HistoryPath is the history file kept beside the baseline at
// baselinePath: baselines/api.json → baselines/api.history.jsonl.
func HistoryPath(baselinePath string) string {
	return strings.TrimSuffix(baselinePath, ".json") + ".history.jsonl"
}

// DecodeHistory parses a history file; name is used in messages, which
// give the line of any problem.
func DecodeHistory(name string, data []byte) (*History, error) {
	h := &History{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), MaxHistoryBytes)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		job, err := decodeJob(text)
		if err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v (fix or remove the line; the file was not changed)", ErrHistoryCorrupt, name, line, err)
		}
		h.Jobs = append(h.Jobs, job)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (the file was not changed)", ErrHistoryCorrupt, name, err)
	}
	return h, nil
}

func decodeJob(line []byte) (Job, error) {
	var j Job
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Job{}, err
	}
	if j.Schema < 1 || j.Schema > HistorySchemaVersion {
		return Job{}, fmt.Errorf("schema %d, this build reads schemas 1 to %d", j.Schema, HistorySchemaVersion)
	}
	if j.AB != nil {
		return j, checkComparison(*j.AB)
	}
	if len(j.Runs) == 0 {
		return Job{}, errors.New("a job without runs")
	}
	return j, nil
}

// checkComparison refuses an A/B link that could not have been written:
// no parent, a metric without a key, or bounds that do not hold the
// estimate.
func checkComparison(c Comparison) error {
	if c.Parent == "" {
		return errors.New("an A/B without the parent commit")
	}
	for _, m := range c.Metrics {
		if m.Key == "" {
			return errors.New("an A/B metric without a key")
		}
		if !(m.Lo <= m.Change && m.Change <= m.Hi) {
			return fmt.Errorf("A/B metric %s: change %g outside its bounds %g … %g", m.Key, m.Change, m.Lo, m.Hi)
		}
	}
	return nil
}

// ReadHistory reads the history at path; ErrNotFound when there is none.
func ReadHistory(path string) (*History, error) { return readAt(path, "history", DecodeHistory) }

// WriteHistory replaces the file at path atomically: a failure leaves the
// old file as it was.
func WriteHistory(path string, h *History) error {
	return atomicfile.Write(path, func(w io.Writer) error { return h.encode(w) })
}

// encode writes a line of JSON per job (json.Marshal's, as trim counts it).
func (h *History) encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, j := range h.Jobs {
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
	return nil
}

// Append adds the job that measured res and then drops the oldest jobs
// beyond keep (DefaultHistoryJobs when keep ≤ 0) and beyond
// MaxHistoryBytes. A job of the same id replaces the earlier line: a job
// recorded twice counts once.
func (h *History) Append(res *result.File, p Provenance, runner string, keep int) {
	job := Job{Schema: HistorySchemaVersion, Benchmark: res.Benchmark, Commit: p.Commit, Ref: p.Ref, Job: p.Job, Time: p.Time,
		DefinitionHash: res.DefinitionHash, Env: res.Env, Runner: runner}
	for _, r := range res.Runs {
		job.Runs = append(job.Runs, copyMetrics(r.Metrics))
		job.SetByLoad = result.AppendNew(job.SetByLoad, r.SetByLoad...)
	}
	h.add(job, keep)
}

// AppendComparison adds the A/B link of the commit p names against its
// parent, as Append adds a job: a link of the same job id replaces the
// earlier line, and the oldest lines beyond keep and MaxHistoryBytes go.
func (h *History) AppendComparison(benchmark, definition string, env result.Env, c Comparison, p Provenance, runner string, keep int) {
	h.add(Job{Schema: HistorySchemaVersion, Benchmark: benchmark, Commit: p.Commit, Ref: p.Ref, Job: p.Job, Time: p.Time,
		DefinitionHash: definition, Env: env, Runner: runner, AB: &c}, keep)
}

func (h *History) add(job Job, keep int) {
	h.Jobs = append(slices.DeleteFunc(slices.Clone(h.Jobs), func(j Job) bool { return j.Job == job.Job }), job)
	h.trim(keep, MaxHistoryBytes)
}

func (h *History) trim(keep, maxBytes int) {
	keep = cmp.Or(max(keep, 0), DefaultHistoryJobs)
	h.Jobs = h.Jobs[max(len(h.Jobs)-keep, 0):]
	size := 0
	for i := len(h.Jobs) - 1; i >= 0; i-- {
		line, _ := json.Marshal(h.Jobs[i])
		size += len(line) + 1
		if size > maxBytes {
			h.Jobs = h.Jobs[i+1:]
			return
		}
	}
}
