package gate

import (
	"math"
	"math/rand/v2"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// world describes synthetic lognormal runs: log-sd from the CV within a
// job, plus a job offset with log-sd drift·σ_w.
type world struct {
	cv    float64 // within-job CV of throughput and p95
	drift float64 // σ_b / σ_w
}

func (w world) sigma() float64 { return math.Sqrt(math.Log(1 + w.cv*w.cv)) }

// job draws runs of one job; scaleTput and scaleP95 multiply the medians
// (0.8 = a 20 % throughput drop).
func (w world) job(rng *rand.Rand, runs int, scaleTput, scaleP95 float64) []result.Run {
	s := w.sigma()
	offT, offP := w.drift*s*rng.NormFloat64(), w.drift*s*rng.NormFloat64()
	out := make([]result.Run, runs)
	for i := range out {
		out[i] = run(map[string]float64{
			result.IterationsPerSec: 100 * scaleTput * math.Exp(offT+s*rng.NormFloat64()),
			result.RequestsPerSec:   400 * scaleTput * math.Exp(offT+s*rng.NormFloat64()),
			result.LatencyP95:       50 * scaleP95 * math.Exp(offP+s*rng.NormFloat64()),
			result.LatencyP99:       80 * scaleP95 * math.Exp(offP+s*rng.NormFloat64()),
			result.RequestErrorPct:  0,
			result.LifecycleSuccess: 100,
		})
	}
	return out
}

// jobs draws count jobs of runs runs each, concatenated.
func (w world) jobs(rng *rand.Rand, count, runs int) []result.Run {
	var out []result.Run
	for range count {
		out = append(out, w.job(rng, runs, 1, 1)...)
	}
	return out
}

// calibrate measures the noise of every ratio metric the way the
// calibrate command will: A/A jobs, one-way ANOVA on logs.
func (w world) calibrate(rng *rand.Rand, jobs, runs int) map[string]stats.Noise {
	perKey := map[string][][]float64{}
	for range jobs {
		j := w.job(rng, runs, 1, 1)
		for _, key := range []string{result.IterationsPerSec, result.LatencyP95} {
			perKey[key] = append(perKey[key], result.Values(j, key))
		}
	}
	out := map[string]stats.Noise{}
	for key, js := range perKey {
		nz, err := stats.Calibrate(js)
		if err != nil {
			panic(err)
		}
		out[key] = nz
	}
	return out
}

func run(metrics map[string]float64) result.Run {
	return result.Run{Metrics: metrics}
}

func runsOf(key string, vals ...float64) []result.Run {
	out := make([]result.Run, len(vals))
	for i, v := range vals {
		out[i] = run(map[string]float64{key: v})
	}
	return out
}

func finding(v Verdict, key string) (Finding, bool) {
	for _, f := range v.Findings {
		if f.Key == key {
			return f, true
		}
	}
	return Finding{}, false
}
