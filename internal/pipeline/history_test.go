package pipeline

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// --since counts the creep from the link after a tag's commit (or from the
// link whose parent it is), or from the first link on or after a date; a
// commit the chain does not hold is bad input.
func TestSinceLink(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	links := []gate.ChainLink{{Commit: "b", Parent: "a", Time: day(1)}, {Commit: "c", Parent: "b", Time: day(2)}, {Commit: "d", Parent: "c", Time: day(3)}}
	cases := []struct {
		since Since
		want  int
	}{
		{Since{}, 0},
		{Since{Commit: "a", Name: "v0"}, 0}, // the first link's parent: the whole chain
		{Since{Commit: "b", Name: "v1"}, 1},
		{Since{Commit: "d", Name: "v2"}, 3}, // the newest: nothing since
		{Since{Time: day(2).Truncate(24 * time.Hour), Name: "2026-11-02"}, 1},
		{Since{Time: day(9), Name: "2026-11-09"}, 3},
	}
	for _, c := range cases {
		got, _, _, err := sinceLink(links, nil, c.since)
		if err != nil || got != c.want {
			t.Errorf("since %+v: %d, %v; want %d", c.since, got, err, c.want)
		}
	}
	if _, _, _, err := sinceLink(links, nil, Since{Commit: "zz", Name: "v9"}); err == nil {
		t.Error("a commit outside the chain was accepted")
	}
}

// --since a tag older than the chain's first link answers from the span
// the Action's creep_since measured from that tag (v1 → d): the creep
// counts every link and is the span's estimate, not bad input. A tag no
// span starts from stays bad input.
func TestHistorySinceATagOlderThanTheChainReadsItsSpan(t *testing.T) {
	t.Parallel()
	h := &baseline.History{}
	day := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ab := func(commit, parent, job string, change float64) {
		c := baseline.Comparison{Parent: parent, Metrics: []baseline.ComparedMetric{
			{Key: result.CPUPerIteration, Change: change, Lo: change - 1, Hi: change + 1, Outcome: "pass"}}}
		day = day.Add(24 * time.Hour)
		h.AppendComparison("api", "d1", result.Env{}, c, baseline.Provenance{Commit: commit, Ref: "refs/heads/main", Job: job, Time: day}, "", 0)
	}
	ab("b", "a", "1/ab", 1)
	ab("c", "b", "2/ab", 1)
	ab("d", "c", "3/ab", 1)
	ab("d", "v1sha", "3/ab-span", 9)
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := baseline.WriteHistory(path, h); err != nil {
		t.Fatal(err)
	}
	in, err := History(HistoryOptions{Path: path, Seed: 1, Since: Since{Commit: "v1sha", Name: "v1"}})
	if err != nil {
		t.Fatalf("--since v1, which the span starts from: %v", err)
	}
	if len(in.Chain.Metrics) != 1 {
		t.Fatalf("chain metrics %+v", in.Chain.Metrics)
	}
	c := in.Chain.Metrics[0].Creep
	if in.Chain.Since != 0 || in.Chain.From != "v1" || c.Span == nil || c.Span.Parent != "v1sha" || c.SpanLinks != 3 || c.Change != 9 {
		t.Errorf("creep since v1: since %d from %q, %+v; want all 3 links measured by the span's +9 %%", in.Chain.Since, in.Chain.From, c)
	}
	if _, err := History(HistoryOptions{Path: path, Since: Since{Commit: "v0sha", Name: "v0"}}); KindOf(err) != Usage {
		t.Errorf("--since a commit neither the chain nor a span holds: %v, want bad input", err)
	}
}
