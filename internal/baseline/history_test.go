package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestHistoryPath(t *testing.T) {
	t.Parallel()
	if got := HistoryPath("baselines/api.json"); got != "baselines/api.history.jsonl" {
		t.Errorf("HistoryPath = %q", got)
	}
}

func TestHistoryAppendKeepsTheLastJobs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "b.history.jsonl")
	h := &History{}
	for i := range 7 {
		res := resultWith("h1", float64(100+i), float64(200+i))
		res.Env = result.Env{CPUModel: "cpu", Cores: 2}
		h.Append(res, Provenance{Commit: fmt.Sprintf("c%d", i), Job: fmt.Sprint(i), Time: time.Unix(int64(i), 0).UTC()}, "ubuntu24/1", 5)
	}
	if len(h.Jobs) != 5 || h.Jobs[0].Commit != "c2" || h.Jobs[4].Commit != "c6" {
		t.Fatalf("kept %d jobs from %s, want the last 5 from c2", len(h.Jobs), h.Jobs[0].Commit)
	}
	if err := WriteHistory(path, h); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if lines := strings.Count(string(data), "\n"); lines != 5 {
		t.Errorf("%d lines, want one a job", lines)
	}
	back, err := ReadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	j := back.Jobs[4]
	if j.Runner != "ubuntu24/1" || j.DefinitionHash != "h1" || j.Env.Cores != 2 || len(j.Runs) != 2 || j.Runs[1][result.IterationsPerSec] != 206 {
		t.Errorf("read back %+v", j)
	}
	// The same job again replaces its line.
	back.Append(resultWith("h1", 1), Provenance{Job: "6"}, "", 5)
	if len(back.Jobs) != 5 || back.Jobs[4].Runs[0][result.IterationsPerSec] != 1 || back.Jobs[0].Commit != "c2" {
		t.Errorf("a repeated job: %d jobs, last %+v", len(back.Jobs), back.Jobs[4])
	}
}

func TestHistoryByteBound(t *testing.T) {
	t.Parallel()
	h := &History{}
	for i := range 20 {
		h.Jobs = append(h.Jobs, Job{Schema: HistorySchemaVersion, Job: fmt.Sprint(i), Runs: []map[string]float64{{"iterations_per_s": float64(i)}}})
	}
	var one strings.Builder
	(&History{Jobs: h.Jobs[19:]}).encode(&one) // every kept line is this long
	h.trim(0, 5*one.Len()+2)
	var all strings.Builder
	if err := h.encode(&all); err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != 5 || h.Jobs[4].Job != "19" || all.Len() > 5*one.Len()+2 {
		t.Errorf("%d bytes in %d jobs (last %s), want the newest 5 within the bound", all.Len(), len(h.Jobs), h.Jobs[len(h.Jobs)-1].Job)
	}
}

// A bad line is named by its number and nothing is written over it.
func TestHistoryCorruptLine(t *testing.T) {
	t.Parallel()
	good := `{"schema":1,"benchmark":"b","job":"1","time":"2026-01-01T00:00:00Z","env":{},"runs":[{"iterations_per_s":5}]}`
	cases := map[string]string{
		"not json":      good + "\n{oops\n",
		"unknown field": good + "\n" + strings.Replace(good, `"job"`, `"jbo"`, 1) + "\n",
		"other schema":  good + "\n" + strings.Replace(good, `"schema":1`, `"schema":3`, 1) + "\n",
		"no runs":       good + "\n" + strings.Replace(good, `[{"iterations_per_s":5}]`, `[]`, 1) + "\n",
		"A/B no parent": good + "\n" + strings.Replace(good, `"runs":[{"iterations_per_s":5}]`, `"runs":null,"ab":{"parent":"","metrics":[]}`, 1) + "\n",
		"A/B bounds": good + "\n" + strings.Replace(good, `"runs":[{"iterations_per_s":5}]`,
			`"runs":null,"ab":{"parent":"abc","metrics":[{"key":"cpu_ms_per_iteration","change":5,"lo":6,"hi":7,"outcome":"pass"}]}`, 1) + "\n",
	}
	for name, text := range cases {
		_, err := DecodeHistory("h.jsonl", []byte(text))
		if !errors.Is(err, ErrHistoryCorrupt) || !strings.Contains(err.Error(), "h.jsonl:2:") {
			t.Errorf("%s: %v, want a corrupt line 2", name, err)
		}
	}
	if _, err := ReadHistory(filepath.Join(t.TempDir(), "none.jsonl")); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v, want ErrNotFound", err)
	}
}

// A history of schema 1 lines and schema 2 A/B links reads back as it was
// written: a link keeps its parent and each metric's estimate and bounds.
func TestHistoryComparisonRoundTrip(t *testing.T) {
	t.Parallel()
	old := `{"schema":1,"benchmark":"b","job":"1","time":"2026-01-01T00:00:00Z","env":{},"runs":[{"iterations_per_s":5}]}` + "\n"
	h, err := DecodeHistory("h.jsonl", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	c := Comparison{Parent: "aaa", Metrics: []ComparedMetric{{Key: "cpu_ms_per_iteration", Change: 1.5, Lo: 0.2, Hi: 2.8, Outcome: "pass"}}}
	h.AppendComparison("b", "d1", result.Env{Cores: 2}, c, Provenance{Commit: "bbb", Ref: "refs/heads/main", Job: "2"}, "", 0)
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := WriteHistory(path, h); err != nil {
		t.Fatal(err)
	}
	back, err := ReadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Jobs) != 2 || back.Jobs[0].AB != nil || back.Jobs[1].AB == nil || back.Jobs[1].Commit != "bbb" ||
		back.Jobs[1].AB.Parent != "aaa" || back.Jobs[1].AB.Metrics[0] != c.Metrics[0] || back.Jobs[1].Schema != HistorySchemaVersion {
		t.Errorf("read back %+v", back.Jobs)
	}
}
