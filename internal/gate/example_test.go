package gate_test

import (
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
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

// A sequential A/B job gating CPU per iteration and the request error
// rate: after every pair the job loop calls JudgeSequential with all pairs
// so far and stops when the verdict is done. Head costs about 12 % more
// CPU per iteration; the pairs scatter by a few percent. The error rate,
// 0 on both sides at the first look, cannot regress: CPU takes all of α.
func ExampleJudgeSequential() {
	baseCPU := []float64{2.04, 1.98, 2.02, 2.00, 1.96, 2.02, 2.06, 1.98}
	headCPU := []float64{2.38, 2.16, 2.30, 2.20, 2.26, 2.18, 2.32, 2.22}
	pair := func(cpu float64) result.Run {
		return result.Run{Metrics: map[string]float64{result.CPUPerIteration: cpu, result.RequestErrorPct: 0}}
	}
	p := gate.Policy{Metrics: []string{result.CPUPerIteration, result.RequestErrorPct}}
	var base, head []result.Run
	for i := range baseCPU {
		base, head = append(base, pair(baseCPU[i])), append(head, pair(headCPU[i]))
		v := gate.JudgeSequential(base, head, p, stats.SeqDesign{}, false, gate.SeqOptions{})
		if !v.Sequential.Done {
			continue
		}
		fmt.Println(v.Outcome, report.StopReason(v.Sequential))
		for _, f := range v.Findings {
			fmt.Printf("%s: %s at %d blocks, worse by %+.1f [%+.1f, %+.1f] against min_effect %g\n", f.Label, f.Outcome, f.DecidedAt, f.Estimate, f.Lower, f.Upper, f.Floor)
		}
		for _, d := range v.Detect {
			fmt.Printf("with up to %d blocks this gate detects a %s of ≥ %.1f %s in %s\n", d.N, d.Direction, d.Effect, d.Unit, d.Label)
		}
		break
	}
	// Output:
	// regression regression after 5 blocks in CPU/iteration
	// request errors: pass at 4 blocks, worse by +0.0 [-0.6, +0.4] against min_effect 1
	// CPU/iteration: regression at 5 blocks, worse by +12.9 [+1.4, +22.3] against min_effect 5
	// with up to 20 blocks this gate detects a rise of ≥ 0.6 pp in request errors
	// with up to 20 blocks this gate detects a rise of ≥ 3.4 % in CPU/iteration
}
