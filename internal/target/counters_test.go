package target

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// fakeExporter is a Prometheus text endpoint on loopback whose counters
// grow by a known step at every scrape.
func fakeExporter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		n := scrapes.Add(1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, `# HELP go_memstats_mallocs_total Total number of mallocs.
# TYPE go_memstats_mallocs_total counter
go_memstats_mallocs_total %d
# HELP http_requests_total Requests by code.
# TYPE http_requests_total counter
http_requests_total{code="200",path="/a b{c}"} %d 1733000000000
http_requests_total{code="500",path="say \"hi\" }"} %d
go_gc_duration_seconds{quantile="0.5"} NaN
process_start_time_seconds 1.733e+09
`, 1000*n, 10*n, n)
	}))
	t.Cleanup(srv.Close)
	return srv, &scrapes
}

func TestPrometheusCountersGrowth(t *testing.T) {
	srv, scrapes := fakeExporter(t)
	c := Counters{BaseURL: srv.URL, Client: srv.Client(), Sources: []config.CounterSource{{
		Name:       "app",
		Prometheus: &config.PrometheusSource{Path: "/metrics", Metrics: []string{"go_memstats_mallocs_total", "http_requests_total"}},
	}}}
	before := c.Read(context.Background())
	scrapes.Add(4) // four scrapes' worth of work happen in the window
	after := c.Read(context.Background())
	growth, notes := Growth(before, after)
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
	// before: scrape 1; after: scrape 6.
	want := map[string]float64{"app.go_memstats_mallocs_total": 5000, "app.http_requests_total": 55}
	for k, v := range want {
		if growth[k] != v {
			t.Errorf("%s grew %v, want %v (all: %v)", k, growth[k], v, growth)
		}
	}
	if len(growth) != len(want) {
		t.Errorf("growth %v: only the named counters", growth)
	}
}

func TestPrometheusMissingCounterIsAbsentWithNote(t *testing.T) {
	srv, _ := fakeExporter(t)
	c := Counters{Client: srv.Client(), Sources: []config.CounterSource{
		{Name: "app", Prometheus: &config.PrometheusSource{URL: srv.URL + "/metrics", Metrics: []string{"go_memstats_mallocs_total", "no_such_total"}}},
		{Name: "gone", Prometheus: &config.PrometheusSource{URL: srv.URL + "/nothing", Metrics: []string{"x_total"}}},
	}}
	growth, notes := Growth(c.Read(context.Background()), c.Read(context.Background()))
	if len(growth) != 0 {
		t.Errorf("growth %v: a source with a counter missing is not read", growth)
	}
	for _, want := range []string{"counters app not read: ", "no sample named no_such_total", "counters gone not read: ", "status 404"} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note with %q in %q", want, notes)
		}
	}
	if len(notes) != 4 { // each source's failure once per read, no per-counter repeats
		t.Errorf("%d notes: %q", len(notes), notes)
	}
}

func TestParsePrometheusTextErrors(t *testing.T) {
	for text, want := range map[string]string{
		"a_total{x=\"1\" 3\n": "not closed",
		"a_total\n":           "has no value",
		"a_total NaN\n":       "want a finite number",
		"b 1\na_total +Inf\n": "line 2",
	} {
		_, err := ParsePrometheusText(strings.NewReader(text), []string{"a_total"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

func TestCommandCounters(t *testing.T) {
	c := Counters{Children: direct(), Sources: []config.CounterSource{
		{Name: "pg", Command: &config.Command{Shell: `echo '{"calls": 12, "rows": 3.5}'`}},
		{Name: "bad", Command: &config.Command{Shell: `echo '{"calls": null}'`}},
		{Name: "fails", Command: &config.Command{Shell: `echo oops >&2; exit 3`}},
		{Name: "odd", Command: &config.Command{Shell: `echo '{"ok": 1, "<b>x</b> ::error::": 2}'`}},
	}}
	snap := c.Read(context.Background())
	if snap.Values["pg.calls"] != 12 || snap.Values["pg.rows"] != 3.5 || len(snap.Values) != 2 {
		t.Errorf("values %v", snap.Values)
	}
	for _, want := range []string{"counters bad not read: members that are not numeric counters: calls (<nil>)", "counters fails not read: ", "oops",
		"counters odd not read: members that are not numeric counters: \"<b>x</b> ::error::\" (not a counter name"} {
		if !slices.ContainsFunc(snap.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note with %q in %q", want, snap.Notes)
		}
	}
}

func TestGrowthCounterThatWentDown(t *testing.T) {
	before := CounterSnapshot{Values: map[string]float64{"pg.calls": 100, "pg.rows": 5}}
	after := CounterSnapshot{Values: map[string]float64{"pg.calls": 3, "pg.rows": 9, "pg.new": 1}}
	growth, notes := Growth(before, after)
	if len(growth) != 1 || growth["pg.rows"] != 4 {
		t.Errorf("growth %v", growth)
	}
	for _, want := range []string{"pg.calls went down", "pg.new was not read at the window's start"} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note with %q in %q", want, notes)
		}
	}
}
