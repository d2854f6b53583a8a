package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
	"github.com/tailgate-ci/tailgate/internal/worktree"
)

// service is a real HTTP service on loopback that counts its requests.
type service struct {
	*httptest.Server
	requests atomic.Int64
}

func newService(t *testing.T) *service {
	t.Helper()
	s := &service{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /item", func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// benchmark is a short open-loop benchmark of the service: 2 runs of 200 ms.
func benchmark(t *testing.T, url string, extra string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("test.yml", []byte(`name: items
target:
  url: `+url+`
  ready: {path: /health, timeout: 1s, interval: 50ms}
load:
  model: open
  rate: 50/s
  warmup: 0s
  duration: 200ms
  runs: 2
scenarios:
  - steps:
      - {name: read, path: /item, expect: {ok: true}}
`+extra))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testEnv collects what a use case shows.
type testEnv struct{ out, log bytes.Buffer }

func (e *testEnv) env() Env {
	return Env{Out: &e.out, Log: &e.log, Machine: result.Env{CPUModel: "test", Cores: 2, OS: "linux", Arch: "amd64"}}
}

func synthetic(n int, scale float64) *result.File {
	f := &result.File{Schema: result.SchemaVersion, Benchmark: "items", DefinitionHash: "sha256:1", Created: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	for i := range n {
		f.Runs = append(f.Runs, result.Run{Index: i, Metrics: map[string]float64{result.IterationsPerSec: scale * (100 + float64(i%5))}})
	}
	return f
}

func TestKinds(t *testing.T) {
	t.Parallel()
	plain := errors.New("plain")
	if KindOf(plain) != Runtime || KindOf(Usage.Wrap(plain)) != Usage {
		t.Error("a plain error is a runtime failure; a wrapped one has its kind")
	}
	if got := KindOf(Runtime.Wrap(Usage.Wrap(plain))); got != Usage {
		t.Errorf("Wrap replaced the first kind: %v", got)
	}
	if Usage.Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	if err := Usage.Errorf("bad %s", "flag"); KindOf(err) != Usage || err.Error() != "bad flag" {
		t.Errorf("Errorf = %v", err)
	}
	// A ref that names no commit is the user's input, whoever wraps it.
	ref := fmt.Errorf("base build: %w", &worktree.RefError{Err: errors.New("nosuch is not a commit of this clone")})
	if got := KindOf(Runtime.Wrap(ref)); got != Usage {
		t.Errorf("an unknown ref wrapped as a runtime failure has kind %v, want Usage", got)
	}
}

// FailOn is the one mapping of a verdict to the Regression kind.
func TestFailOn(t *testing.T) {
	t.Parallel()
	reg := gate.Verdict{Outcome: gate.Regression, Regressions: []string{"iterations_per_s", "latency_p95_ms"}}
	inc := gate.Verdict{Outcome: gate.Inconclusive}
	pass := gate.Verdict{Outcome: gate.Pass}
	cli := FailOn{Regression: true, InconclusiveSetting: "--fail-on-inconclusive"}
	if err := cli.Err(reg); KindOf(err) != Regression || err.Error() != "regression in iterations_per_s, latency_p95_ms" {
		t.Errorf("regression: %v", err)
	}
	if cli.Err(inc) != nil || cli.Err(pass) != nil {
		t.Error("an inconclusive or passing verdict failed without being asked to")
	}
	cli.Inconclusive = true
	if err := cli.Err(inc); KindOf(err) != Regression || !strings.Contains(err.Error(), "--fail-on-inconclusive is set") {
		t.Errorf("inconclusive: %v", err)
	}
	if (FailOn{}).Err(reg) != nil {
		t.Error("FailOn{} (an A/A run, fail_on_regression: false) failed a regression")
	}
}

func TestRunWritesTheResultAndShowsTheRuns(t *testing.T) {
	svc := newService(t)
	var te testEnv
	path := filepath.Join(t.TempDir(), "result.json")
	res, err := Run(t.Context(), te.env(), RunOptions{Config: benchmark(t, svc.URL, ""), ResultPath: path})
	if err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadFile(path)
	if err != nil || len(back.Runs) != 2 || len(res.Runs) != 2 || back.Env.CPUModel != "test" {
		t.Fatalf("result file: %v, %+v", err, back)
	}
	if !strings.Contains(te.out.String(), "median") || svc.requests.Load() == 0 {
		t.Errorf("%d requests; shown:\n%s", svc.requests.Load(), te.out.String())
	}
}

func TestCheckWithoutABaselinePassesAndKeepsTheRuns(t *testing.T) {
	svc := newService(t)
	var te testEnv
	dir := t.TempDir()
	bl, out := filepath.Join(dir, "baseline.json"), filepath.Join(dir, "head.json")
	j, err := Check(t.Context(), te.env(), CheckOptions{Config: benchmark(t, svc.URL, ""), ResultPath: out, Baseline: baseline.FileSource{Path: bl}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Verdict.Outcome != gate.Pass || !j.Verdict.HasWarning(gate.WarnNoBaseline) || j.BaselineSource != "none yet ("+bl+")" || j.Mode != "check" {
		t.Errorf("judged %s from %q (warnings %v)", j.Verdict.Outcome, j.BaselineSource, j.Verdict.Warnings)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the measured runs were not written: %v", err)
	}
	if _, err := os.Stat(bl); err == nil {
		t.Error("a check wrote a baseline")
	}
}

// An unreadable baseline stops the check before a benchmark is spent on
// it, and is left as it is.
func TestCheckReadsTheBaselineFirst(t *testing.T) {
	svc := newService(t)
	var te testEnv
	bl := filepath.Join(t.TempDir(), "baseline.json")
	os.WriteFile(bl, []byte("{broken"), 0o644)
	_, err := Check(t.Context(), te.env(), CheckOptions{Config: benchmark(t, svc.URL, ""), Baseline: baseline.FileSource{Path: bl}})
	if KindOf(err) != Runtime || !strings.Contains(fmt.Sprint(err), bl) {
		t.Fatalf("Check = %v, want a runtime failure naming %s", err, bl)
	}
	if svc.requests.Load() != 0 || te.out.Len() != 0 {
		t.Errorf("the benchmark ran (%d requests) against an unreadable baseline", svc.requests.Load())
	}
	if data, _ := os.ReadFile(bl); string(data) != "{broken" {
		t.Errorf("the baseline was changed: %q", data)
	}
}

func TestCheckJudgesGivenRunsAgainstTheStoredBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.json")
	bl := baseline.New("items", "sha256:1", result.Env{}, 0)
	for j := range 4 {
		bl.Append(synthetic(5, 1), baseline.Provenance{Job: fmt.Sprint("job-", j), Commit: fmt.Sprintf("c0ffee%d", j)})
	}
	if err := baseline.Write(path, bl); err != nil {
		t.Fatal(err)
	}
	var te testEnv
	j, err := Check(t.Context(), te.env(), CheckOptions{Head: synthetic(5, 0.7), Baseline: baseline.FileSource{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Verdict.Outcome != gate.Regression || j.BaselineSource != path+" (20 samples from 4 jobs)" || te.out.Len() != 0 {
		t.Errorf("judged %s from %q; shown %q", j.Verdict.Outcome, j.BaselineSource, te.out.String())
	}
	// The reports get the samples and their commits (the HTML report's
	// runs and trend).
	if len(j.Input.Base) != 20 || len(j.BaseOrigins) != 20 || j.BaseOrigins[19].Commit != "c0ffee3" || j.BaseOrigins[0].Job != "job-0" {
		t.Errorf("the report input has %d base runs and %d origins (%v)", len(j.Input.Base), len(j.BaseOrigins), j.BaseOrigins)
	}
}

func TestRecordAppendsWithProvenance(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "baseline.json")
	var te testEnv
	head := synthetic(3, 1)
	rec, err := Record(t.Context(), te.env(), RecordOptions{Head: head, Path: path, Provenance: baseline.Provenance{Commit: "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Baseline.Samples[0]
	if len(rec.Baseline.Samples) != 3 || s.Commit != "abc" || s.Job != "local-20261101T120000.000" || !s.Time.Equal(head.Created) {
		t.Errorf("recorded %d samples, first %+v", len(rec.Baseline.Samples), s)
	}
	rec, err = Record(t.Context(), te.env(), RecordOptions{Head: synthetic(2, 1), Path: path, Provenance: baseline.Provenance{Job: "77-1"}})
	if err != nil || len(rec.Baseline.Samples) != 5 || rec.Baseline.Jobs() != 2 {
		t.Fatalf("second record: %v, %d samples from %d jobs", err, len(rec.Baseline.Samples), rec.Baseline.Jobs())
	}
	other := synthetic(2, 1)
	other.DefinitionHash = "sha256:2"
	if _, err := Record(t.Context(), te.env(), RecordOptions{Head: other, Path: path}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(te.log.String(), "the 5 old samples and the calibration are dropped") {
		t.Errorf("a changed definition was not told: %q", te.log.String())
	}
}

func TestCalibrateMeasuresTheNoise(t *testing.T) {
	svc := newService(t)
	var te testEnv
	path := filepath.Join(t.TempDir(), "baseline.json")
	cfg := benchmark(t, svc.URL, "gate:\n  alpha: 0.1\n")
	cal, err := Calibrate(t.Context(), te.env(), CalibrateOptions{Config: cfg, Path: path, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if cal.Jobs != 2 || cal.Samples != 4 || cal.BaselineJobs != 2 || cal.Alpha != 0.1 || cal.Runs != 2 {
		t.Errorf("calibration %+v", cal)
	}
	if _, ok := cal.Noise[result.IterationsPerSec]; !ok {
		t.Errorf("no noise for iterations/s: %v", cal.Noise)
	}
	if !stats.HasWarning(cal.Warnings, baseline.WarnRoughEstimate) {
		t.Errorf("2 jobs without the rough-estimate warning: %v", cal.Warnings)
	}
	if n := strings.Count(te.log.String(), "calibration job "); n != 2 {
		t.Errorf("%d job notices:\n%s", n, te.log.String())
	}
	stored, err := baseline.Read(path)
	if err != nil || len(stored.Calibration.Jobs) != 2 || stored.Calibration.Jobs[0].Job == stored.Calibration.Jobs[1].Job {
		t.Errorf("stored calibration: %v %+v", err, stored)
	}
	if _, err := Calibrate(t.Context(), te.env(), CalibrateOptions{Config: cfg, Path: path}); KindOf(err) != Usage {
		t.Errorf("no jobs: %v, want a usage error", err)
	}
}

func TestABNeedsABase(t *testing.T) {
	t.Parallel()
	var te testEnv
	_, err := AB(t.Context(), te.env(), ABOptions{Config: benchmark(t, "http://127.0.0.1:1", "")})
	if KindOf(err) != Usage || !strings.Contains(err.Error(), "names no base build") {
		t.Errorf("AB = %v", err)
	}
}

func TestCompareReadsRunSets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, f *result.File) string {
		path := filepath.Join(dir, name)
		if err := result.WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base, err := ReadRunSet([]string{write("a.json", synthetic(10, 1)), write("b.json", synthetic(10, 1))}, "")
	if err != nil || len(base.Runs) != 20 || base.DefinitionHash != "sha256:1" {
		t.Fatalf("ReadRunSet = %v, %d runs", err, len(base.Runs))
	}
	head, _ := ReadRunSet([]string{write("c.json", synthetic(5, 0.7))}, "")
	j := Compare(CompareOptions{Base: base, Head: head, BaseFiles: 2})
	if j.Verdict.Outcome != gate.Regression || j.BaselineSource != "2 file(s), 20 runs" || j.Mode != "compare" {
		t.Errorf("compare: %s from %q", j.Verdict.Outcome, j.BaselineSource)
	}
	if len(j.Input.Base) != 20 || len(j.Input.Head) != 5 || j.BaseOrigins != nil {
		t.Errorf("the report input has %d base and %d head runs, origins %v", len(j.Input.Base), len(j.Input.Head), j.BaseOrigins)
	}
	junk := filepath.Join(dir, "junk.txt")
	os.WriteFile(junk, []byte("\x00 not a result"), 0o644)
	if _, err := ReadRunSet([]string{junk}, ""); KindOf(err) != Usage {
		t.Errorf("a garbage file: %v, want bad input", err)
	}
}

// A check whose floors come from a calibration of few jobs, or of jobs
// close together in time, says so; a calibration of 10 jobs over hours
// does not.
func TestCheckSaysWhenTheCalibrationIsWeak(t *testing.T) {
	t.Parallel()
	check := func(jobs int, apart time.Duration) gate.Verdict {
		t.Helper()
		path := filepath.Join(t.TempDir(), "baseline.json")
		bl := baseline.New("items", "sha256:1", result.Env{}, 0)
		start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		for j := range jobs {
			runs := synthetic(5, 1+0.01*float64(j%3))
			bl.Append(runs, baseline.Provenance{Job: fmt.Sprint("cal-", j)})
			bl.AddJob(fmt.Sprint("cal-", j), start.Add(time.Duration(j)*apart), runs.Runs)
		}
		bl.Calibration.EstimateNoise(0.05)
		if err := baseline.Write(path, bl); err != nil {
			t.Fatal(err)
		}
		var te testEnv
		j, err := Check(t.Context(), te.env(), CheckOptions{Head: synthetic(5, 1), Baseline: baseline.FileSource{Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		if f := j.Verdict.Findings[0]; f.FloorSource != gate.FromCalibration {
			t.Fatalf("iterations/s floor from %s, want the calibration", f.FloorSource)
		}
		return j.Verdict
	}
	v := check(3, time.Minute)
	if !v.HasWarning(gate.WarnFewCalibrationJobs) || !v.HasWarning(gate.WarnCalibrationBunched) {
		t.Errorf("3 jobs a minute apart: warnings %q", stats.Messages(v.Warnings))
	}
	msgs := strings.Join(stats.Messages(v.Warnings), "\n")
	for _, want := range []string{"only 3 jobs", "within 2 minutes", "calibrate --pause", "--append"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("warnings lack %q:\n%s", want, msgs)
		}
	}
	v = check(10, 20*time.Minute)
	if v.HasWarning(gate.WarnFewCalibrationJobs) || v.HasWarning(gate.WarnCalibrationBunched) {
		t.Errorf("10 jobs over 3 hours: warnings %q", stats.Messages(v.Warnings))
	}
	if v = check(12, 10*time.Second); v.HasWarning(gate.WarnFewCalibrationJobs) || !v.HasWarning(gate.WarnCalibrationBunched) {
		t.Errorf("12 jobs within 2 minutes: warnings %q", stats.Messages(v.Warnings))
	}
}
