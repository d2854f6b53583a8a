package artillery

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The test files are real Artillery reports (bench/importer-fixtures/make.sh,
// Artillery 2.0.21 and 1.7.9): 40 virtual users of two requests each, to
// a service that answers every tenth request to /mixed with 503.

func TestV2Report(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Report{}, "testdata/v2.json")
	if run.Requests != (result.Requests{Total: 80, Failed: 4, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 8.6, result.LatencyP50: 7.9, result.LatencyP90: 13.9, result.LatencyP95: 15,
		result.LatencyP99: 19.1, result.LatencyMax: 41, result.RequestErrorPct: 5,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	if want := time.UnixMilli(1796116971310).UTC(); !run.Started.Equal(want) || run.Window != 3.913 {
		t.Errorf("started %v, window %v; want %v and 3.913 s (firstMetricAt to lastMetricAt)", run.Started, run.Window, want)
	}
	it := run.Iterations
	if it.Started != 40 || it.Completed != 40 || it.Succeeded != 40 || it.Counted != result.CountAll {
		t.Errorf("iterations %+v", it)
	}
	// 40 users completed, none failed (the 503s fail requests, not users).
	importertest.WantMetric(t, run, result.LifecycleSuccess, 100)
	if len(run.Steps) != 2 || run.Steps[0].Name != "/mixed" || run.Steps[0].Requests != 40 || run.Steps[0].Failed != 4 {
		t.Errorf("steps %+v", run.Steps)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrStatus, Count: 4, Sample: "status 503"}})
}

// The first Artillery 2.0 releases named the HTTP engine's metrics
// "engine.http.*" and the users' "core.vusers.*" (testdata/v2.0-engine.json
// is v2.json so named): such a report was refused as holding no HTTP
// requests. It is detected and reads as the later one does.
func TestV20EngineNames(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "v2.0-engine.json")
	if f, err := importer.Detect("report.json", data); err != nil || f.Name() != "artillery-json" {
		t.Fatalf("detected %v, %v; want artillery-json", f, err)
	}
	old := importertest.MustImport(t, Report{}, "testdata/v2.0-engine.json")
	now := importertest.MustImport(t, Report{}, "testdata/v2.json")
	if old.Requests != now.Requests || old.Iterations != now.Iterations || old.Window != now.Window || len(old.Steps) != 2 {
		t.Errorf("requests %+v, iterations %+v, window %v, %d steps; want %+v, %+v, %v, 2", old.Requests, old.Iterations, old.Window, len(old.Steps), now.Requests, now.Iterations, now.Window)
	}
	for key, want := range now.Metrics {
		importertest.WantMetric(t, old, key, want)
	}
	if len(old.Metrics) != len(now.Metrics) {
		t.Errorf("metrics %v, want %v", old.Metrics, now.Metrics)
	}
	importertest.WantErrors(t, old, now.Errors)
}

func TestV1Report(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Report{}, "testdata/v1.json")
	if run.Requests != (result.Requests{Total: 80, Failed: 4, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	for key, want := range map[string]float64{
		result.LatencyP50: 8, result.LatencyP95: 13, result.LatencyP99: 14, result.LatencyMax: 14,
		result.RequestsPerSec: 18.18, result.RequestErrorPct: 5,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantAbsent(t, run, result.LatencyMean, result.LatencyP90)
	if run.Window != 0 || !run.Started.IsZero() {
		t.Errorf("window %v, started %v: 1.x states neither", run.Window, run.Started)
	}
}

// 1.x counts requests that got no response under errors, not among the
// completed ones.
func TestV1ErrorsAreRequests(t *testing.T) {
	t.Parallel()
	data := `{"aggregate": {"scenariosCreated": 10, "scenariosCompleted": 4, "requestsCompleted": 4,
		"latency": {"min": 3, "max": 90, "median": 7, "p95": 80, "p99": 90}, "rps": {"count": 10, "mean": 2},
		"errors": {"ETIMEDOUT": 5, "ECONNREFUSED": 1}, "codes": {"200": 4}}, "intermediate": []}`
	run, err := Report{}.Import("v1.json", strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests != (result.Requests{Total: 10, Failed: 6, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{
		{Class: result.ErrConnection, Count: 1, Sample: "ECONNREFUSED"},
		{Class: result.ErrTimeout, Count: 5, Sample: "ETIMEDOUT"},
	})
}

func TestRejections(t *testing.T) {
	t.Parallel()
	var syn *importer.SyntaxError
	for _, data := range []string{`{"aggregate": {"counters": {}}}`, `{"intermediate": []}`, `{"aggregate": {"counters": {"http.requests": 1}, "summaries": {}`} {
		if _, err := (Report{}).Import("bad.json", strings.NewReader(data)); !errors.As(err, &syn) {
			t.Errorf("%s: %v, want a syntax error", data, err)
		}
	}
}

// FuzzImport: no panic, and a run that encodes or a typed error.
func FuzzImport(f *testing.F) {
	importertest.AddSeeds(f, 16<<10, importertest.Files("testdata/*.json")...)
	importertest.AddSeeds(f, 16<<10, importertest.SharedFixtureFiles("artillery")...)
	importertest.Fuzz(f, nil, Report{})
}

// Reports of a service that resets every connection (20 virtual users of
// one request each, Artillery 1.7.9 and 2.0.21): every request failed with
// ECONNRESET, and there is no latency. 1.x writes its latencies as null;
// they are absent, not 0 ms.
func TestEveryRequestReset(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"testdata/v1-reset.json", "testdata/v2-reset.json"} {
		run := importertest.MustImport(t, Report{}, file)
		importertest.WantRequests(t, run, result.CountRequests, `{"total":20,"failed":20}`)
		importertest.WantMetric(t, run, result.RequestErrorPct, 100)
		importertest.WantAbsent(t, run, result.LatencyMean, result.LatencyP50, result.LatencyP90,
			result.LatencyP95, result.LatencyP99, result.LatencyMax)
		importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrConnection, Count: 20, Sample: "ECONNRESET"}})
	}
}

// A 2.x user that ended in an error (vusers.failed) is a failed
// lifecycle; a report of users who all failed has 0 % success, not none.
func TestV2LifecycleSuccess(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Report{}, "testdata/v2-reset.json")
	if it := run.Iterations; it.Completed != 20 || it.Succeeded != 0 || it.Counted&result.CountSucceeded == 0 {
		t.Errorf("iterations %+v, want 20 ended, 0 succeeded", it)
	}
	importertest.WantMetric(t, run, result.LifecycleSuccess, 0)
	in := `{"aggregate":{"counters":{"http.requests":10,"http.codes.200":10,"vusers.created":4,"vusers.completed":3,"vusers.failed":1},"summaries":{}}}`
	run, err := Report{}.Import("mixed.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantMetric(t, run, result.LifecycleSuccess, 75)
	none := `{"aggregate":{"counters":{"http.requests":10,"http.codes.200":10},"summaries":{}}}`
	if run, err = (Report{}).Import("none.json", strings.NewReader(none)); err != nil {
		t.Fatal(err)
	}
	importertest.WantAbsent(t, run, result.LifecycleSuccess)
}

// Artillery 2.x counts in errors.* what its scenario did wrong too (a
// function the script lacks): a run whose 159 requests all got a 200 and
// that counted 162 such errors read 100 % failed requests. Those errors
// fail no request; a timeout, which leaves a request without a response,
// does. The real report (all 200) is changed into both runs.
func TestV2ScenarioErrorsAreNotFailedRequests(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(importertest.FixturesDir(t, "artillery"), "ArtieFuzzz__pkm__artillery_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	variant := func(requests int, errs map[string]int) *result.Run {
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		c := d["aggregate"].(map[string]any)["counters"].(map[string]any)
		c["http.requests"], c["http.codes.200"], c["http.responses"] = requests, 159, 159
		for k, v := range errs {
			c["errors."+k] = v
		}
		b, _ := json.Marshal(d)
		run, err := Report{}.Import("report.json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	missing := `Undefined function "setToken"`
	run := variant(159, map[string]int{missing: 162})
	importertest.WantRequests(t, run, result.CountRequests, `{"total":159,"failed":0}`)
	importertest.WantMetric(t, run, result.RequestErrorPct, 0)
	if len(run.Errors) != 0 || !importertest.HasNote(run, `162 × `+missing) {
		t.Errorf("errors %+v, notes %q; want no failed request and a note of the 162 errors", run.Errors, run.Notes)
	}
	run = variant(164, map[string]int{missing: 162, "ETIMEDOUT": 5})
	importertest.WantRequests(t, run, result.CountRequests, `{"total":164,"failed":5}`)
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrTimeout, Count: 5, Sample: "ETIMEDOUT"}})
	if !importertest.HasNote(run, `162 × `+missing) {
		t.Errorf("notes %q; want the 162 scenario errors", run.Notes)
	}
}
