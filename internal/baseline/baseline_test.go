package baseline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
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

// calibrated is a calibration of jobs A/A jobs of 10 runs of lognormal
// throughput, σ_w = 5 % within and σ_b = 3 % between jobs.
func calibrated(jobs int) *File {
	rng := rand.New(rand.NewPCG(3, 4))
	f := New("x", "h", result.Env{}, 0)
	for j := range jobs {
		off := 0.03 * rng.NormFloat64()
		var runs []result.Run
		for range 10 {
			runs = append(runs, result.Run{Metrics: map[string]float64{result.IterationsPerSec: 100 * math.Exp(off+0.05*rng.NormFloat64())}})
		}
		f.AddJob(fmt.Sprint("job-", j), time.Time{}, runs)
	}
	return f
}

func TestEstimateNoise(t *testing.T) {
	t.Parallel()
	f := calibrated(60)
	if w := f.Calibration.EstimateNoise(0.05); len(w) != 0 {
		t.Errorf("60 consistent jobs gave warnings %v", w)
	}
	nz := f.Calibration.Noise[result.IterationsPerSec]
	if math.Abs(nz.SigmaW/0.05-1) > 0.15 || nz.Jobs != 60 {
		t.Errorf("noise %+v, want σ_w ≈ 0.05 from 60 jobs", nz)
	}
	few := calibrated(4)
	if w := few.Calibration.EstimateNoise(0.05); !stats.HasWarning(w, WarnRoughEstimate) {
		t.Errorf("4 jobs: warnings %v, want a rough estimate", w)
	}
	one := calibrated(1)
	if w := one.Calibration.EstimateNoise(0.05); !stats.HasWarning(w, WarnTooFewJobs) || len(one.Calibration.Noise) != 0 {
		t.Errorf("1 job: warnings %v, noise %v", w, one.Calibration.Noise)
	}
}

// The cross-check of the noise model is made at the α it is given (the
// config's): the modelled job-to-job floor at α = 0.3 is a third of the one
// at 0.05, and no longer agrees with the differences the jobs show.
func TestEstimateNoiseCrossChecksAtTheGivenAlpha(t *testing.T) {
	t.Parallel()
	f := calibrated(60)
	if w := f.Calibration.EstimateNoise(0.05); stats.HasWarning(w, WarnNoiseModel) {
		t.Fatalf("α 0.05: %v", w)
	}
	if w := f.Calibration.EstimateNoise(0.3); !stats.HasWarning(w, WarnNoiseModel) {
		t.Errorf("α 0.3: warnings %v, want the model to disagree", w)
	}
}

func TestFileSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := FileSource{Path: filepath.Join(dir, "b.json")}
	if bl, err := src.Read(t.Context()); bl != nil || err != nil {
		t.Errorf("no file: %v, %v; want no baseline and no error", bl, err)
	}
	if err := Write(src.Path, New("b", "h", result.Env{}, 0)); err != nil {
		t.Fatal(err)
	}
	if bl, err := src.Read(t.Context()); err != nil || bl.Benchmark != "b" {
		t.Errorf("Read = %v, %v", bl, err)
	}
	os.WriteFile(src.Path, []byte("{"), 0o644)
	if _, err := src.Read(t.Context()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a corrupt file: %v, want ErrCorrupt", err)
	}
	if src.String() != src.Path || (FileSource{Path: "p", Name: "the demo's p"}).String() != "the demo's p" {
		t.Error("FileSource names its place by Name, else the path")
	}
}
