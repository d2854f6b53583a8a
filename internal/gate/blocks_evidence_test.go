package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// block measures the next block of the interleaved design: both sides'
// processes fresh for the block (their levels apart by the world's bias),
// windows windows of each side alternating AB BA …, the machine walking
// window by window.
func (j *abJob) block(windows int, cpuEffect float64) (base, head []result.Run) {
	w := j.w
	pb, ph := w.bias/math.Sqrt2*j.rng.NormFloat64(), w.bias/math.Sqrt2*j.rng.NormFloat64()
	for k := range windows {
		first := (j.pairs + k) % 2
		var b, h result.Run
		for s := range 2 {
			if s == first {
				b = j.runAt(pb, 0)
			} else {
				h = j.runAt(ph, cpuEffect)
			}
		}
		base, head = append(base, b), append(head, h)
	}
	j.pairs++
	return base, head
}

// runAt is run with the process level given (the block's) instead of a
// fresh one.
func (j *abJob) runAt(process, cpuEffect float64) result.Run {
	w, rng := j.w, j.rng
	j.level += w.walk * rng.NormFloat64()
	slow := j.level + process
	tput := 120 * math.Exp(-slow+w.tputCV*rng.NormFloat64())
	return result.Run{Metrics: map[string]float64{
		result.IterationsPerSec: tput,
		result.LatencyP95:       25 * math.Exp(1.5*slow+w.p95C*rng.NormFloat64()),
		result.RequestErrorPct:  0,
		result.LifecycleSuccess: 100,
		result.CPUPerIteration:  2 * (1 + cpuEffect) * math.Exp(0.5*j.level+process+w.cpuCV*rng.NormFloat64()),
	}}
}

// simulateBlocks runs one interleaved job (3 windows a block, 3 to 12
// blocks), judging after every block as the job loop does.
func simulateBlocks(rng *rand.Rand, w abWorld, cpuEffect float64, prior map[string]stats.SeqPrior) Verdict {
	job := w.job(rng)
	var base, head []result.Run
	var blocks []int
	for b := 0; ; b++ {
		bb, hh := job.block(3, cpuEffect)
		base, head = append(base, bb...), append(head, hh...)
		for range bb {
			blocks = append(blocks, b)
		}
		v := JudgeSequentialWith(base, head, Policy{}, stats.SeqDesign{MinPairs: 3, MaxPairs: 12}, false, SeqOptions{Blocks: blocks, Prior: prior})
		if v.Sequential.Done {
			return v
		}
	}
}

// TestInterleavedGateEvidence: the false-alarm bound of the pairs design's
// evidence (≤ 5 % over 2,000 A/A jobs on a drifting machine, processes
// 6 % apart) holds for the interleaved design, with its within-block
// pooling, and with a noise file learnt from the job before; and both
// still catch +20 % CPU per iteration.
func TestInterleavedGateEvidence(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(19, 0xb1))
	var prior map[string]stats.SeqPrior
	alarms, priorAlarms, units, priorUnits := 0, 0, 0, 0
	const jobs = 2000
	for range jobs {
		v := simulateBlocks(rng, realistic, 0, nil)
		if v.Outcome == Regression {
			alarms++
		}
		units += v.Sequential.Pairs
		p := simulateBlocks(rng, realistic, 0, prior) // pooled with the previous job's noise
		if p.Outcome == Regression {
			priorAlarms++
		}
		priorUnits += p.Sequential.Pairs
		prior = p.Noise
	}
	t.Logf("interleaved, 5 gated metrics, realistic machine: A/A false alarms %d of %d (%.1f blocks), with the previous job's noise %d of %d (%.1f blocks)",
		alarms, jobs, float64(units)/jobs, priorAlarms, jobs, float64(priorUnits)/jobs)
	bound := 0.05 - 2*math.Sqrt(0.05*0.95/jobs)
	if float64(alarms)/jobs > bound || float64(priorAlarms)/jobs > bound {
		t.Errorf("A/A false alarms %d and %d of %d: want ≤ 5 %% with two standard errors to spare", alarms, priorAlarms, jobs)
	}
	caught := 0
	for range 300 {
		if v := simulateBlocks(rng, realistic, 0.20, nil); v.Outcome == Regression {
			caught++
		}
	}
	t.Logf("+20 %% CPU per iteration caught in %d of 300 jobs", caught)
	if caught < 285 {
		t.Errorf("+20 %% CPU caught %d of 300 times, want ≥ 95 %%", caught)
	}
}
