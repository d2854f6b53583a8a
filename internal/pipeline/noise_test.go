package pipeline

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A noise file learns the spread of the units across jobs: the first job
// judges by its own and keeps it, the next pools it (its own spread
// agrees: the services fail exactly the same shares) and says so; the
// file holds both jobs under one key.
func TestABNoiseFileIsKeptAndPooled(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "noise", "ab.json")
	job := func() Judged {
		t.Helper()
		var te testEnv
		cfg := designConfig(t, sequentialYAML(failing(t, 0), failing(t, 20, 0), result.RequestErrorPct, 13))
		j, err := AB(t.Context(), te.env(), ABOptions{Config: cfg, NoisePath: path})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	first := job()
	wantIn(t, strings.Join(first.Notes, "\n"), "noise: this job's own (the noise file "+path+" had no earlier job")
	n, err := baseline.ReadNoise(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Entries) != 1 || len(n.Entries[0].Jobs) != 1 {
		t.Fatalf("noise file after one job: %+v", n)
	}
	got := n.Entries[0].Jobs[0].Metrics[result.RequestErrorPct]
	if got.DF != first.Verdict.Sequential.Blocks-1 || !(got.SD > 5) {
		t.Errorf("kept spread %+v after %d blocks whose error rates alternate 20/0 points", got, first.Verdict.Sequential.Blocks)
	}
	second := job()
	wantIn(t, strings.Join(second.Notes, "\n"), "noise: pooled with 1 earlier job in "+path+" for request errors", "degrees of freedom")
	if df := second.Verdict.PriorUsed[result.RequestErrorPct]; df < 4 {
		t.Errorf("the second job pooled %d degrees of freedom of stored noise, want the first job's", df)
	}
	if n, err = baseline.ReadNoise(path); err != nil || len(n.Entries) != 1 || len(n.Entries[0].Jobs) != 2 {
		t.Errorf("noise file after two jobs: %+v, %v", n, err)
	}
}

// A noise file that cannot be read is a runtime error that names it, and
// it is left as it was.
func TestABUnreadableNoiseFileIsAnErrorAndKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ab.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var te testEnv
	cfg := designConfig(t, sequentialYAML(failing(t, 0), failing(t, 0), result.RequestErrorPct, 1))
	_, err := AB(t.Context(), te.env(), ABOptions{Config: cfg, NoisePath: path})
	if err == nil || KindOf(err) != Runtime || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v (%v), want a runtime error naming %s", err, KindOf(err), path)
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Errorf("the unreadable noise file was changed: %q", b)
	}
}

// A nearly exact count's spread is written with its digits, so that a
// stored spread that disagrees with the job's does not read "0.0 %
// disagrees with 0.0 %".
func TestSpreadTextKeepsSmallSpreadsApart(t *testing.T) {
	ratio, points := gate.Finding{}, gate.Finding{Percent: true}
	for _, c := range []struct {
		f    gate.Finding
		sd   float64
		want string
	}{
		{ratio, math.Log(1.042), "4.2 %"},
		{ratio, math.Log(1.002), "0.2 %"}, // one decimal still says it
		{ratio, math.Log(1.00003), "0.003 %"},
		{ratio, math.Log(1.0003), "0.03 %"},
		{points, 0.5, "0.50 pp"},
	} {
		if got := report.SpreadText(c.f, c.sd); got != c.want {
			t.Errorf("spreadText(%v) = %q, want %q", c.sd, got, c.want)
		}
	}
}

// Stored noise too uncertain to pool is not said to disagree with this
// job's, and the note says which made it uncertain: too few earlier
// blocks, or earlier jobs whose spreads disagree (stats.PoolNoise).
func TestNoiseNotesTellTooUncertainFromDisagreeing(t *testing.T) {
	f := gate.Finding{Key: result.IterationsPerSec, Label: "iterations/s"}
	v := gate.Verdict{Sequential: &gate.Sequential{}, Findings: []gate.Finding{f},
		Noise: map[string]stats.SeqPrior{f.Key: {SD: math.Log(1.04), DF: 2}}}
	n := &abNoise{path: "noise.json", earlier: 10}
	for _, c := range []struct {
		prior stats.SeqPrior
		want  string
	}{
		{stats.SeqPrior{SD: math.Log(1.05), DF: 3, Summed: 3}, "iterations/s (stored 5.0 % has 3 degrees of freedom, too few to pool: too few earlier blocks)"},
		{stats.SeqPrior{SD: math.Log(1.05), DF: 1, Summed: 40}, "iterations/s (stored 5.0 % comes from earlier jobs whose spreads disagree with each other: worth 1 of their 40 degrees of freedom, too few to pool)"},
		{stats.SeqPrior{SD: math.Log(1.20), DF: 16}, "iterations/s (stored 20.0 % disagrees with this job's 4.0 %)"},
	} {
		n.prior = map[string]stats.SeqPrior{f.Key: c.prior}
		wantIn(t, strings.Join(n.notes(v), "\n"), "noise: this job's own for "+c.want)
	}
	// a look that pooled its own windows' spread (16 df) where the stored
	// one was unusable did not pool the noise file
	v.PriorUsed = map[string]int{f.Key: 16}
	n.prior = map[string]stats.SeqPrior{f.Key: {SD: math.Log(1.05), DF: 1, Summed: 40}}
	if notes := strings.Join(n.notes(v), "\n"); strings.Contains(notes, "pooled with") || !strings.Contains(notes, "this job's own for iterations/s") {
		t.Errorf("windows' spread pooled, the stored unusable: notes %q, want this job's own", notes)
	}
}
