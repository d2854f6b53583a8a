package gatling

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestStatsTree(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, StatsFormat{}, "testdata/stats.json")
	if run.Requests.Total != 200 || run.Requests.Failed != 10 {
		t.Fatalf("requests = %+v, want 200 total, 10 failed", run.Requests)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 120, result.LatencyP50: 100, result.LatencyP95: 300, result.LatencyP99: 800,
		result.LatencyMax: 1200, result.RequestsPerSec: 20, result.RequestErrorPct: 5,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantAbsent(t, run, result.LatencyP90)
	if len(run.Metrics) != 7 {
		t.Errorf("metrics = %v, want exactly 7", run.Metrics)
	}
	// The group is not a step; its request is, named by its path.
	if got := strings.Join(importertest.StepNames(run), "|"); got != "GET /items|checkout / POST /pay" {
		t.Fatalf("steps = %s", got)
	}
	pay := run.Steps[1]
	if pay.Requests != 50 || pay.Failed != 10 || pay.Metrics[result.LatencyP95] != 900 || pay.Metrics[result.RequestErrorPct] != 20 {
		t.Errorf("POST /pay = %+v", pay)
	}
}

func TestStatsGlobalWithStringsAndMissingPercentiles(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, StatsFormat{}, "testdata/global_stats.json")
	if run.Requests.Total != 40 || run.Requests.Failed != 0 {
		t.Fatalf("requests = %+v", run.Requests)
	}
	importertest.WantMetric(t, run, result.LatencyP50, 48)
	importertest.WantMetric(t, run, result.LatencyMean, 50)
	importertest.WantMetric(t, run, result.RequestsPerSec, 4)
	importertest.WantMetric(t, run, result.RequestErrorPct, 0)
	importertest.WantAbsent(t, run, result.LatencyP90, result.LatencyP95, result.LatencyP99)
	if len(run.Steps) != 0 {
		t.Errorf("steps = %v, want none from global_stats.json", importertest.StepNames(run))
	}
	importertest.WantRequests(t, run, result.CountRequests, `{"total":40,"failed":0}`)

	// A KO count of "-" is unknown, not 0: no failed count, no error rate.
	data := strings.Replace(string(importertest.Testdata(t, "global_stats.json")), `"ok": "40", "ko": "0"`, `"ok": "40", "ko": "-"`, 1)
	run, err := StatsFormat{}.Import("global_stats.json", strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantRequests(t, run, result.CountTotal, `{"total":40}`)
	importertest.WantAbsent(t, run, result.RequestErrorPct)
}

func TestStatsBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"bad-stats.json", `testdata/bad-stats.json:3: "lots" is not a number`},
		{"bad-stats-syntax.json", `testdata/bad-stats-syntax.json:3: invalid JSON (invalid character '"' after object key:value pair`},
		{"nocount-stats.json", `testdata/nocount-stats.json: no numberOfRequests.total; expected Gatling's`},
		{"v39.log", `testdata/v39.log:1: invalid JSON (invalid character 'A' looking for beginning of value`},
	} {
		_, err := importertest.ImportPath(StatsFormat{}, "testdata/"+tc.file)
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\nwant SyntaxError %q", tc.file, err, tc.want)
		}
	}
}

func TestStatsSniff(t *testing.T) {
	t.Parallel()
	if !(StatsFormat{}).Sniff("g.json", []byte(`{"name": "x", "numberOfRequests": {"total": 1}, "percentiles1": {}}`)) {
		t.Error("global_stats.json not recognised")
	}
	if (StatsFormat{}).Sniff("s.json", []byte(`{"Total": {"transaction": "Total", "sampleCount": 1, "meanResTime": 2}}`)) {
		t.Error("a JMeter file taken for Gatling's")
	}
}

// js/stats.js holds stats.json's tree as JavaScript. testdata/stats.js is
// testdata/stats.json written out as Gatling's StatsJsTemplate (3.x up to
// 3.13) writes it: "var stats = {", the tree's own keys unquoted, each
// node's figures as JSON, then the report's functions.
func TestStatsJSIsReadAsItsJSON(t *testing.T) {
	t.Parallel()
	js := importertest.MustImport(t, StatsFormat{}, "testdata/stats.js")
	json := importertest.MustImport(t, StatsFormat{}, "testdata/stats.json")
	if js.Requests != json.Requests || len(js.Metrics) != len(json.Metrics) {
		t.Fatalf("stats.js: requests %+v metrics %v; stats.json: %+v %v", js.Requests, js.Metrics, json.Requests, json.Metrics)
	}
	for k, v := range json.Metrics {
		importertest.WantMetric(t, js, k, v)
	}
	// The template writes a node's groups before its requests.
	if got := strings.Join(importertest.StepNames(js), "|"); got != "checkout / POST /pay|GET /items" {
		t.Errorf("steps %s", got)
	}
	if !(StatsFormat{}).Sniff("stats.js", importertest.Testdata(t, "stats.js")) {
		t.Error("stats.js not claimed")
	}
}

func TestStatsJSBroken(t *testing.T) {
	t.Parallel()
	data := string(importertest.Testdata(t, "stats.js"))
	for name, in := range map[string]string{
		"cut.js":     data[:len(data)/2],
		"nobrace.js": "var stats = 42;\n",
		"badnum.js":  strings.Replace(data, `"total": 200`, `"total": lots`, 1),
	} {
		_, err := StatsFormat{}.Import(name, strings.NewReader(in))
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) {
			t.Errorf("%s: err = %v, want a syntax error", name, err)
		}
	}
}
