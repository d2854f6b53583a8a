package cli_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Synthetic results: fixed values with a small deterministic spread, so
// that every verdict (and every golden file) is the same on every machine.

var (
	synthEnv  = result.Env{CPUModel: "Synthetic CPU", Cores: 2, OS: "linux", Arch: "amd64", GoVersion: "go1.26", TailgateVersion: "test"}
	synthTime = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
)

const synthHash = "sha256:definition-1"

// jitter returns a spread of about ±2 % that cycles through 5 values.
func jitter(i int) float64 { return 1 + 0.01*float64((i*3)%5-2) }

// synthRun is one run whose throughput is scale × 100 iterations/s.
func synthRun(i int, scale float64) result.Run {
	j := jitter(i)
	return result.Run{
		Index:   i,
		Started: synthTime.Add(time.Duration(i) * time.Minute),
		Window:  4,
		Model:   "open",
		Metrics: map[string]float64{
			result.IterationsPerSec: 100 * scale * j,
			result.RequestsPerSec:   400 * scale * j,
			result.LatencyP50:       5 * (2 - j),
			result.LatencyP95:       12 * (2 - j),
			result.LatencyP99:       20 * (2 - j),
			result.RequestErrorPct:  0,
			result.LifecycleSuccess: 100,
		},
	}
}

// synthResult is a result file of n runs at scale × the base throughput.
func synthResult(n int, scale float64, hash string) *result.File {
	f := &result.File{Schema: result.SchemaVersion, Benchmark: "synthetic", DefinitionHash: hash, Source: "tailgate", Created: synthTime, Env: synthEnv}
	for i := range n {
		f.Runs = append(f.Runs, synthRun(i, scale))
	}
	return f
}

// synthBaseline is a baseline of jobs × perJob samples at the base throughput.
func synthBaseline(jobs, perJob int, hash string) *baseline.File {
	bl := baseline.New("synthetic", hash, synthEnv, 0)
	for j := range jobs {
		res := &result.File{DefinitionHash: hash, Env: synthEnv}
		for r := range perJob {
			res.Runs = append(res.Runs, synthRun(j*perJob+r, 1))
		}
		bl.Append(res, baseline.Provenance{Commit: fmt.Sprintf("c%02d", j), Ref: "refs/heads/main", Job: fmt.Sprintf("job-%d", j), Time: synthTime.Add(time.Duration(j) * time.Hour)})
	}
	return bl
}

func writeResult(t *testing.T, dir, name string, f *result.File) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := result.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeBaseline(t *testing.T, dir, name string, bl *baseline.File) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := baseline.Write(path, bl); err != nil {
		t.Fatal(err)
	}
	return path
}
