package report_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

func eqJob(rng *rand.Rand, runs int, cv, drift, scaleT, scaleP float64, keys []string) []result.Run {
	s := math.Sqrt(math.Log(1 + cv*cv))
	offT, offP := drift*s*rng.NormFloat64(), drift*s*rng.NormFloat64()
	out := make([]result.Run, runs)
	for i := range out {
		m := map[string]float64{
			result.IterationsPerSec: 100 * scaleT * math.Exp(offT+s*rng.NormFloat64()),
			result.RequestsPerSec:   400 * scaleT * math.Exp(offT+s*rng.NormFloat64()),
			result.LatencyP95:       50 * scaleP * math.Exp(offP+s*rng.NormFloat64()),
			result.LatencyP99:       80 * scaleP * math.Exp(offP+s*rng.NormFloat64()),
			result.CPUPerIteration:  5 * scaleP * math.Exp(offP+s*rng.NormFloat64()),
			result.RequestErrorPct:  math.Max(0, rng.NormFloat64()*0.3*scaleP),
			result.LifecycleSuccess: math.Min(100, 100-math.Abs(rng.NormFloat64())*0.5*scaleP),
			result.DroppedPct:       0,
		}
		if keys != nil {
			mm := map[string]float64{}
			for _, k := range keys {
				if v, ok := m[k]; ok {
					mm[k] = v
				}
			}
			m = mm
		}
		out[i] = result.Run{Index: i, Metrics: m}
	}
	return out
}

func TestZZEquivalence(t *testing.T) {
	out := os.Getenv("EQUIV_OUT")
	if out == "" {
		t.Skip("EQUIV_OUT unset")
	}
	var buf bytes.Buffer
	rng := rand.New(rand.NewPCG(99, 7))
	allMetrics := []string{result.IterationsPerSec, result.LatencyP95, result.RequestErrorPct, result.LifecycleSuccess, result.CPUPerIteration, result.LatencyP99}
	for c := 0; c < 1500; c++ {
		n := 1 + rng.IntN(10)
		jobs := 1 + rng.IntN(6)
		per := 1 + rng.IntN(6)
		cv := []float64{0, 0.01, 0.03, 0.07, 0.2}[rng.IntN(5)]
		drift := []float64{0, 0.5, 1, 3}[rng.IntN(4)]
		st := []float64{0.7, 0.9, 0.97, 1, 1.05, 1.3}[rng.IntN(6)]
		sp := []float64{0.7, 1, 1.1, 1.5}[rng.IntN(4)]
		var keys []string
		switch rng.IntN(6) {
		case 0:
			keys = []string{result.RequestsPerSec, result.LatencyP95}
		case 1:
			keys = []string{result.IterationsPerSec, result.RequestErrorPct}
		}
		var base []result.Run
		for range jobs {
			base = append(base, eqJob(rng, per, cv, drift, 1, 1, keys)...)
		}
		head := eqJob(rng, n, cv, drift, st, sp, keys)
		p := gate.Policy{BaselineJobs: rng.IntN(jobs + 1)}
		switch rng.IntN(4) {
		case 1:
			p.Metrics = allMetrics
		case 2:
			p.Metrics = []string{result.IterationsPerSec, "nope", result.CPUPerIteration}
		}
		if rng.IntN(3) == 0 {
			p.Noise = map[string]stats.Noise{}
			for _, k := range []string{result.IterationsPerSec, result.LatencyP95, result.CPUPerIteration, result.RequestErrorPct} {
				if rng.IntN(2) == 0 {
					p.Noise[k] = stats.Noise{SigmaW: rng.Float64() * 0.1, SigmaB: rng.Float64() * 0.05, Jobs: 10, Runs: 5}
				}
			}
			if rng.IntN(10) == 0 {
				p.Noise[result.IterationsPerSec] = stats.Noise{SigmaW: math.NaN()}
			}
		}
		if rng.IntN(3) == 0 {
			p.Floors = map[string]float64{result.CPUPerIteration: 10, result.IterationsPerSec: 3, result.LatencyP99: 20}
		}
		if rng.IntN(4) == 0 {
			p.MinEffect = map[string]float64{result.IterationsPerSec: 5, result.LatencyP95: 8, result.RequestErrorPct: 0.5}
		}
		switch rng.IntN(6) {
		case 0:
			p.SameJob = true
		case 1:
			p.SameJob, p.Paired = true, true
			base = eqJob(rng, n, cv, drift, 1, 1, keys)
		case 2:
			p.Paired = true
			base = eqJob(rng, n+rng.IntN(2), cv, drift, 1, 1, keys)
		}
		switch rng.IntN(8) {
		case 0:
			p.Alpha = 0.01
		case 1:
			p.Alpha = 0.1
		case 2:
			p.Alpha = 1.5
		}
		switch rng.IntN(12) {
		case 0:
			p.Context.DefinitionChanged = true
		case 1:
			p.Context.NoBaseline = true
		case 2:
			p.Context.EnvDiffers, p.Context.EnvDiff = true, "a → b"
		case 3:
			base = nil
		case 4:
			head = nil
		case 5:
			if len(base) > 0 {
				base[0].Metrics[result.IterationsPerSec] = 0
			}
		}
		v := gate.Judge(base, head, p)
		in := report.Input{Name: fmt.Sprintf("case%d", c), Mode: "check", BaselineSource: "x", Verdict: v, Head: head, Notes: []string{"n"}}
		fmt.Fprintf(&buf, "=== case %d\n", c)
		report.WriteText(&buf, in)
		report.WriteJSON(&buf, in)
		buf.WriteString(report.Markdown(in))
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
