package gate_test

import (
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// runs makes one run per throughput value, each with a p95 of 50 ms.
func runs(throughput ...float64) []result.Run {
	out := make([]result.Run, len(throughput))
	for i, v := range throughput {
		out[i] = result.Run{Metrics: map[string]float64{result.IterationsPerSec: v, result.LatencyP95: 50 + float64(i%3)}}
	}
	return out
}

// Five head runs against ten baseline samples from two jobs, gating
// throughput and p95 by their default floors: the throughput dropped 20 %,
// beyond its 6.7 % floor, and the exact test is significant, so the gate
// fails; the p95 did not move. Until the noise is calibrated, a warning
// says the floors are defaults.
func ExampleJudge() {
	base := runs(100, 101, 99, 102, 98, 100, 103, 97, 100, 101)
	head := runs(80, 82, 79, 81, 80)
	p := gate.Policy{Metrics: []string{result.IterationsPerSec, result.LatencyP95}, BaselineJobs: 2}
	v := gate.Judge(base, head, p)
	fmt.Println(v.Outcome, v.Regressions)
	for _, f := range v.Findings {
		fmt.Printf("%s: %s, change %+.1f %%, floor %.1f %% (%s), p %.4f (%s)\n", f.Label, f.Outcome, f.Change, f.Floor, f.FloorSource, f.P, f.Test)
	}
	for _, d := range v.Detect {
		fmt.Printf("detects a %s of ≥ %.1f %% in %s\n", d.Direction, d.Effect, d.Label)
	}
	fmt.Println(v.HasWarning(gate.WarnDefaultFloors))
	// Output:
	// regression [iterations_per_s]
	// iterations/s: regression, change -20.0 %, floor 6.7 % (default), p 0.0003 (mann-whitney exact)
	// latency p95: pass, change +0.0 %, floor 51.0 % (default), p 0.5365 (mann-whitney exact)
	// detects a drop of ≥ 7.6 % in iterations/s
	// detects a rise of ≥ 52.4 % in latency p95
	// true
}
