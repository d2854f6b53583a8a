package cli_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestRunWritesResult(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "run", "-c", cfg, "-o", out)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "result written to "+out, "median", "CV")

	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatalf("reading the result: %v", err)
	}
	if res.Schema != 1 {
		t.Errorf("schema %d, want 1", res.Schema)
	}
	if res.Benchmark != "items" || res.Source != "tailgate" || res.DefinitionHash == "" {
		t.Errorf("benchmark %q, source %q, definition hash %q", res.Benchmark, res.Source, res.DefinitionHash)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2 (load.runs)", len(res.Runs))
	}
	for i, r := range res.Runs {
		for _, key := range []string{result.IterationsPerSec, result.RequestsPerSec, result.LatencyP95, result.RequestErrorPct, result.LifecycleSuccess} {
			if _, ok := r.Metrics[key]; !ok {
				t.Errorf("run %d lacks metric %s: %v", i, key, r.Metrics)
			}
		}
		if r.Metrics[result.IterationsPerSec] <= 0 {
			t.Errorf("run %d: %s = %v, want > 0", i, result.IterationsPerSec, r.Metrics[result.IterationsPerSec])
		}
		if r.Requests.Total == 0 || r.Requests.Failed != 0 {
			t.Errorf("run %d: %d requests, %d failed; want some requests and no failure", i, r.Requests.Total, r.Requests.Failed)
		}
		if len(r.Steps) != 2 || r.Steps[0].Name != "create" || r.Steps[1].Name != "read" {
			t.Errorf("run %d steps = %+v, want create, read", i, r.Steps)
		}
	}
	if svc.resets.Load() != 2 {
		t.Errorf("the dataset was reset %d times, want once per run (2)", svc.resets.Load())
	}
	if svc.created.Load() == 0 || svc.reads.Load() == 0 {
		t.Errorf("the service saw %d creates and %d reads, want both > 0", svc.created.Load(), svc.reads.Load())
	}
}

// The flags override the file's load settings.
func TestRunFlagsOverrideConfig(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "run", "-q", "-c", cfg, "-o", out, "--runs", "3", "--duration", "200ms", "--warmup", "0s")
	wantCode(t, o, 0)
	if o.stderr != "" {
		t.Errorf("-q printed progress on stderr: %q", o.stderr)
	}
	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Errorf("%d runs, want 3 from --runs", len(res.Runs))
	}
	for i, r := range res.Runs {
		if r.Window < 0.15 || r.Window > 1.0 {
			t.Errorf("run %d measured %.3f s; --duration 200ms asked for about 0.2 s", i, r.Window)
		}
	}
}

func TestRunBadConfigNamesFileLineColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.yml")
	mustWrite(t, cfg, "name: bad\ntarget:\n  url: http://127.0.0.1:1\nload:\n  rate: 10/s\n  durashun: 1s\nscenarios:\n  - steps:\n      - path: /\n")
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "run", "-c", cfg, "-o", out)
	wantCode(t, o, 2)
	if !regexp.MustCompile(regexp.QuoteMeta(cfg) + `:6:\d+:`).MatchString(o.stderr) {
		t.Errorf("stderr does not point at %s:6:<col> (the misspelt key):\n%s", cfg, o.stderr)
	}
	wantContains(t, "stderr", o.stderr, "durashun")
	wantNoFile(t, out)
}

func TestRunUnreachableTargetIsRuntimeFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", closedPortURL(t), 0)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "run", "-c", cfg, "-o", out)
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, "ready")
	wantNoFile(t, out)
}

func TestRunDatasetVerifyFailureIsRuntimeFailure(t *testing.T) {
	svc := newItemService(t, 5) // the verify expects 3
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "run", "-c", cfg, "-o", out)
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, "dataset verify", "run 1 of 2")
	wantNoFile(t, out)
	if svc.created.Load() != 0 {
		t.Errorf("the load ran (%d creates) although the dataset was wrong", svc.created.Load())
	}
}

// When a run fails, the progress line "run 1 of 2: " is ended before the
// error is printed, so the error starts on a line of its own.
func TestRunFailureMessageStartsOnItsOwnLine(t *testing.T) {
	svc := newItemService(t, 5)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)

	o := tailgate(t, "run", "-c", cfg, "-o", filepath.Join(dir, "r.json"))
	wantCode(t, o, 3)
	if !regexp.MustCompile(`(?m)^tailgate run: `).MatchString(o.stderr) {
		t.Errorf("the error is glued to the progress line:\n%q", o.stderr)
	}
}
