package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// A run of a started target beside another process (a part, by pid file)
// and a counter endpoint: the run carries the part's figures, the whole
// path's CPU, and each counter's growth per iteration; with the part's
// pid file gone, the part and the path CPU are absent, with a note.
func TestRunMeasuresThePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := exec.Command("sleep", "60") // a process beside the target: a database server that idles
	if err := db.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Process.Kill(); db.Wait() })
	pidFile := filepath.Join(dir, "db.pid")
	os.WriteFile(pidFile, []byte(fmt.Sprintln(db.Process.Pid)), 0o600)

	var scrapes atomic.Int64
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "# TYPE queries_total counter\nqueries_total{db=\"app\"} %d\nqueries_total{db=\"other\"} 7\n", 1000*scrapes.Add(1))
	}))
	t.Cleanup(exporter.Close)

	tgt := serviceTarget(t, dir+"/target.env")
	tgt.Measure = []config.MeasurePart{{Name: "db", PIDFile: pidFile}}
	tgt.Counters = []config.CounterSource{
		{Name: "exp", Prometheus: &config.PrometheusSource{URL: exporter.URL + "/metrics", Metrics: []string{"queries_total"}}},
		{Name: "cmd", Command: &config.Command{Shell: `echo "{\"side\": 1, \"runs\": $(cat ` + dir + `/n 2>/dev/null || echo 0)}"; echo $(( $(cat ` + dir + `/n 2>/dev/null || echo 0) + 5 )) > ` + dir + `/n`}},
	}
	cfg := benchConfig(tgt.URL, 1)
	cfg.Target = tgt
	cfg.Dataset = config.Dataset{}
	cfg.Load.Duration = config.Duration(time.Second)
	r := &Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{testExe(t), supervisorArg}}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	n := float64(run.Iterations.Completed)
	if got := run.Metrics[result.CounterKey("exp", "queries_total")]; got != 1000/n {
		t.Errorf("queries per iteration %v, want 1000/%v (one scrape's growth)", got, n)
	}
	if got := run.Metrics[result.CounterKey("cmd", "runs")]; got != 5/n {
		t.Errorf("command counter per iteration %v, want 5/%v", got, n)
	}
	if got, ok := run.Metrics[result.CounterKey("cmd", "side")]; !ok || got != 0 {
		t.Errorf("a counter that did not move: %v (present %v), want a measured 0", got, ok)
	}
	names := []string{}
	for _, p := range run.Parts {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"target", "db"}) {
		t.Errorf("parts %q, want the target and db", names)
	}
	target, path := run.Metrics[result.CPUPerIteration], run.Metrics[result.PathCPUPerIteration]
	dbCPU, ok := run.Metrics[result.PartCPUKey("db")]
	if !ok || target <= 0 || path != target+dbCPU {
		t.Errorf("path CPU %v, want target %v + db %v (present %v); notes %q", path, target, dbCPU, ok, run.Notes)
	}
	if _, ok := run.Metrics[result.PartKey("target", "syscw_per_iteration")]; !ok {
		t.Errorf("no system calls of the target: %v", run.Metrics)
	}

	os.Remove(pidFile)
	res, err = r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run = res.Runs[0]
	for k := range run.Metrics {
		if k == result.PathCPUPerIteration || strings.HasPrefix(k, "part.db.") {
			t.Errorf("%s present although db could not be read", k)
		}
	}
	if !slices.ContainsFunc(run.Notes, func(n string) bool { return strings.HasPrefix(n, "part db not measured: reading the pid file") }) {
		t.Errorf("notes %q, want why db is absent", run.Notes)
	}
	if _, ok := run.Metrics[result.CPUPerIteration]; !ok {
		t.Errorf("the target's CPU is lost with the part's: %v", run.Metrics)
	}
}
