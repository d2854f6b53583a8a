package report

import (
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// The footprint table shows each footprint metric's spread across runs
// beside the target's CPU, and is left out when no run measured one.
func TestFootprintTable(t *testing.T) {
	t.Parallel()
	run := func(cpu, calls float64) result.Run {
		return result.Run{Metrics: map[string]float64{
			result.CPUPerIteration: cpu, result.CounterKey("pg", "calls"): calls, result.PathCPUPerIteration: 3 * cpu,
		}}
	}
	var b strings.Builder
	if err := WriteRunTable(&b, &result.File{Runs: []result.Run{run(10, 17), run(12, 18), run(11, 17.5)}}); err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(b.String(), "footprint per iteration, across runs:\n")
	if !ok {
		t.Fatalf("no footprint table:\n%s", b.String())
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	want := [][]string{
		{"metric", "unit", "runs", "median", "min–max", "CV"},
		{"cpu_ms_per_iteration", "ms", "3", "11.0", "10.0–12.0", "9.1%"},
		{"path_cpu_ms_per_iteration", "ms", "3", "33.0", "30.0–36.0", "9.1%"},
		{"counter.pg.calls", "/iteration", "3", "17.5", "17.0–18.0", "2.9%"},
	}
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s", table)
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
	}

	b.Reset()
	plain := result.Run{Metrics: map[string]float64{result.CPUPerIteration: 10}}
	WriteRunTable(&b, &result.File{Runs: []result.Run{plain, plain}})
	if strings.Contains(b.String(), "footprint") {
		t.Errorf("a footprint table without footprint metrics:\n%s", b.String())
	}
}
