package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

func resultWith(hash string, values ...float64) *result.File {
	f := &result.File{Benchmark: "b", DefinitionHash: hash}
	for i, v := range values {
		f.Runs = append(f.Runs, result.Run{Index: i, Metrics: map[string]float64{result.IterationsPerSec: v}})
	}
	return f
}

func TestAppendKeepsWindow(t *testing.T) {
	t.Parallel()
	f := New("b", "h1", result.Env{}, 4)
	f.Append(resultWith("h1", 1, 2, 3), Provenance{Job: "j1"})
	f.Append(resultWith("h1", 4, 5, 6), Provenance{Job: "j2"})
	if len(f.Samples) != 4 {
		t.Fatalf("kept %d samples, want the window of 4", len(f.Samples))
	}
	if got := f.Samples[0].Metrics[result.IterationsPerSec]; got != 3 {
		t.Errorf("oldest kept sample = %v, want 3 (the oldest two dropped)", got)
	}
	if f.Jobs() != 2 {
		t.Errorf("Jobs() = %d, want 2", f.Jobs())
	}
}

func TestAppendNewDefinitionStartsOver(t *testing.T) {
	t.Parallel()
	f := New("b", "h1", result.Env{}, 30)
	f.Append(resultWith("h1", 1, 2), Provenance{Job: "j1"})
	f.AddJob("cal", time.Now(), resultWith("h1", 1, 2).Runs)
	f.Append(resultWith("h2", 7), Provenance{Job: "j2"})
	if len(f.Samples) != 1 || f.DefinitionHash != "h2" || f.Calibration != nil {
		t.Fatalf("after a definition change: %d samples, hash %q, calibration %v; want 1, h2, nil", len(f.Samples), f.DefinitionHash, f.Calibration)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "baselines", "b.json")
	f := New("b", "h1", result.Env{}, 30)
	res := resultWith("h1", 10, 11)
	res.Env.Cores = 2 // the baseline takes the environment of the runs it records
	f.Append(res, Provenance{Job: "j1", Commit: "abc"})
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Samples) != 2 || g.Samples[1].Commit != "abc" || g.Env.Cores != 2 {
		t.Fatalf("read back %+v", g)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "none.json")); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v, want ErrNotFound", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":1,"samples":[`), 0o644)
	if _, err := Read(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("cut file: %v, want ErrCorrupt", err)
	}
	future := filepath.Join(dir, "future.json")
	os.WriteFile(future, []byte(`{"schema":99}`), 0o644)
	if _, err := Read(future); !errors.Is(err, ErrCorrupt) {
		t.Errorf("unknown schema: %v, want ErrCorrupt", err)
	}
}

func TestMetricJobs(t *testing.T) {
	t.Parallel()
	f := New("b", "h", result.Env{}, 30)
	f.AddJob("a", time.Now(), resultWith("h", 1, 2, 3).Runs)
	f.AddJob("b", time.Now(), resultWith("h", 4).Runs) // one run: no within-job spread
	jobs := f.Calibration.MetricJobs(result.IterationsPerSec)
	if len(jobs) != 1 || len(jobs[0]) != 3 {
		t.Fatalf("MetricJobs = %v, want one job of 3 runs", jobs)
	}
}
