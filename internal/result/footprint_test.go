package result

import (
	"slices"
	"testing"
)

func TestSummarizeFootprint(t *testing.T) {
	t.Parallel()
	run := Run{
		Iterations: Iterations{Completed: 200, Counted: CountAll},
		Resources:  &Resources{CPUSeconds: 1.0},
		Parts: []Part{
			{Name: "target", Totals: map[string]float64{FigureUserCPU: 0.6, FigureSystemCPU: 0.3, FigureSyscR: 400}},
			{Name: "postgres", Totals: map[string]float64{FigureUserCPU: 1.5, FigureSystemCPU: 0.5, FigurePeakRSS: 300 << 20, FigureMajorFaults: 0}},
		},
		Counters: map[string]float64{"pg.calls": 3600},
	}
	run.Summarize()
	want := map[string]float64{
		CPUPerIteration:        5,
		PathCPUPerIteration:    15, // the target's own 1.0 s (not its part's ticks) + postgres's 2.0 s, over 200
		PartCPUKey("postgres"): 10,
		PartKey("postgres", "user_cpu_ms_per_iteration"):  7.5,
		PartKey("postgres", "peak_rss_mb"):                300,
		PartKey("postgres", "major_faults_per_iteration"): 0,
		PartKey("target", "syscr_per_iteration"):          2,
		CounterKey("pg", "calls"):                         18,
	}
	for k, v := range want {
		if got, ok := run.Metrics[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := run.Metrics[PartKey("postgres", "syscr_per_iteration")]; ok {
		t.Error("a figure the part lacks became a metric")
	}

	// a part read with no CPU (absent, not zero) leaves the path's CPU out
	run.Metrics = nil
	run.Parts = append(run.Parts, Part{Name: "redis"})
	run.Summarize()
	if v, ok := run.Metrics[PathCPUPerIteration]; ok {
		t.Errorf("path CPU %v with a part not measured", v)
	}
	if _, ok := run.Metrics[PartCPUKey("postgres")]; !ok {
		t.Error("the parts that were measured are still reported")
	}
}

func TestFootprintKeys(t *testing.T) {
	t.Parallel()
	for key, label := range map[string]string{
		"part.postgres.cpu_ms_per_iteration":            "postgres CPU/iteration",
		"part.db.voluntary_ctxt_switches_per_iteration": "db voluntary_ctxt_switches",
		"part.db.peak_rss_mb":                           "db peak RSS",
		"counter.pg.calls":                              "pg calls",
		"counter.app.go_memstats_mallocs_total":         "app go_memstats_mallocs_total",
		PathCPUPerIteration:                             "path CPU/iteration",
	} {
		m, ok := Lookup(key)
		if !ok || m.Label != label || m.Better != LowerIsBetter || m.Scale != Ratio {
			t.Errorf("%s: %+v (known %v)", key, m, ok)
		}
	}
	for _, key := range []string{"part.db", "part.db.cpu", "part..cpu_ms_per_iteration", "counter.pg", "counter..x", "part.db.rss_per_iteration"} {
		if _, ok := Lookup(key); ok {
			t.Errorf("%s is not a metric", key)
		}
	}
	cat := Catalogue("counter.pg.calls", "latency_p95_ms", "part.db.cpu_ms_per_iteration", "counter.pg.calls")
	keys := make([]string, len(cat))
	for i, m := range cat {
		keys[i] = m.Key
	}
	if !slices.Equal(keys[len(Metrics):], []string{"counter.pg.calls", "part.db.cpu_ms_per_iteration"}) {
		t.Errorf("catalogue adds %q", keys[len(Metrics):])
	}
}
