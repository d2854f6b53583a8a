package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Whether a closed phase's windows load both sides at once is decided by
// the job. At once measures each side all of a window pair's time, but two
// sides that each take all the machine gives can make each pay for the
// other, shrinking a change (Node, an N+1: +83 … +92 % alone, +68 … +71 %
// at once), or share a busy machine unequally. So a probe before the first
// block's windows loads half its pairs each way, and blocks load at once
// only where each side's CPU per iteration and the head-to-base ratio of
// throughput stay within duetTolerance (an inflation δ shrinks a change r
// to about r/(1+δ)); anything else, CPU unmeasured included, alternates.
// The probe is no part of a block: blocks measured half each way spread
// 3–4 times as wide (Verdaccio).
const duetTolerance = 0.05 // in logs: a +10 % change reads at least +9.5 %

// duetSeen is the first block's probe of a closed phase: its log values
// by mode (0 alternating, 1 at once) and side.
type duetSeen struct {
	cpu, tput [2][2][]float64
}

// pairAtOnce reports whether the window pairs of phase ph load both sides
// at once: an open phase's always (Shape.AtOnce), a closed phase's as the
// first block's probe found (probeDuet), the same in every block.
func (j *abJob) pairAtOnce(ph config.PhaseLoad) bool {
	if !j.probes(ph) {
		return j.plan.Shape.AtOnce(ph)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, d := range j.res.Duets {
		if d.Phase == ph.Name {
			return d.AtOnce
		}
	}
	return false // not probed: alternating cannot shrink a change
}

// probeDuet measures the first block's probe of a closed phase ph whose
// sides can be told apart (probes): up to maxProbePairs window pairs each
// way, timed as warm-up, out of the block; judgeDuet decides how the
// phase's windows load the sides. It returns a user's lifecycle in the
// probe's windows of the mode decided; other phases and blocks, 0.
func (j *abJob) probeDuet(ctx context.Context, tgts [2]*running, ph config.PhaseLoad, blk int, setups [2]*load.SetupCache, rng *rand.Rand) (time.Duration, error) {
	if blk != 0 || !j.probes(ph) {
		return 0, nil
	}
	j.b.observer().Step(blk, stepName("probe", ph.Name))
	pairs := min(j.plan.Shape.Windows, maxProbePairs)
	seen := &duetSeen{}
	err := j.windows(ctx, tgts, ph, blk, setups, j.windowOrder(blk, pairs, rng), windowRun{atOnce: probedAtOnce, keep: seen.saw, probe: true})
	if err != nil {
		return 0, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	d := j.judgeDuet(ph, seen)
	j.res.Duets = append(j.res.Duets, d)
	return seen.lifecycle(ph.Load.VUs, d.AtOnce), nil
}

// lifecycle is a virtual user's on the slower side in the probe's windows
// of the mode the phase runs in (the warm-up loads both at once: Radicale's
// then took half the time they took alternating).
func (seen *duetSeen) lifecycle(vus int, atOnce bool) time.Duration {
	var life time.Duration
	for _, logs := range seen.tput[map[bool]int{false: 0, true: 1}[atOnce]] {
		if len(logs) > 0 {
			life = max(life, lifecycle(vus, math.Exp(meanOf(logs))))
		}
	}
	return life
}

// maxProbePairs bounds the probe's window pairs: 2 a way tell an
// inflation of the size duetTolerance bounds from a shift between
// windows of half a second or more.
const maxProbePairs = 4

// probes reports whether the job decides phase ph from its first block:
// a closed phase of blocks whose sides can be told apart.
func (j *abJob) probes(ph config.PhaseLoad) bool {
	s := j.plan.Shape
	return s.Blocks() && s.Alternate.Why == 0 && ph.Load.Model != config.ModelOpen
}

// probedAtOnce reports whether the probe loads window pair w at once (1, 2,
// 5, 6, …), so that the alternating ones take turns at which goes first.
func probedAtOnce(w int) bool { return w%4 == 1 || w%4 == 2 }

// saw keeps what the probe's window pair w measured of side.
func (seen *duetSeen) saw(side Side, w int, run *result.Run) {
	mode := 0
	if probedAtOnce(w) {
		mode = 1
	}
	for _, m := range []struct {
		key  string
		into *[2][2][]float64
	}{{result.CPUPerIteration, &seen.cpu}, {result.IterationsPerSec, &seen.tput}} {
		if v, ok := run.Value(m.key); ok && v > 0 {
			m.into[mode][side] = append(m.into[mode][side], math.Log(v))
		}
	}
}

// judgeDuet is judgeDuet for phase ph of this job: the throughput ratio
// counts where the verdict gates iterations/s (ABPlan.Gated).
func (j *abJob) judgeDuet(ph config.PhaseLoad, seen *duetSeen) result.Duet {
	d := judgeDuet(seen, j.plan.Gated == nil || j.plan.Gated(result.IterationsPerSec))
	d.Phase = ph.Name
	return d
}

// judgeDuet decides from a first block's windows whether a closed phase
// loads both sides at once in the later blocks (see duetTolerance);
// throughput says whether the head-to-base ratio of iterations/s counts.
func judgeDuet(seen *duetSeen, throughput bool) result.Duet {
	d := result.Duet{Tolerance: duetTolerance}
	if seen == nil {
		return d
	}
	for mode := range seen.cpu {
		for side := range seen.cpu[mode] {
			if len(seen.cpu[mode][side]) == 0 || len(seen.tput[mode][side]) == 0 {
				return d
			}
		}
	}
	d.Measured = true
	for side := range d.Inflation {
		d.Inflation[side] = meanOf(seen.cpu[1][side]) - meanOf(seen.cpu[0][side])
	}
	ratio := func(mode int) float64 { return meanOf(seen.tput[mode][Head]) - meanOf(seen.tput[mode][Base]) }
	d.Shift = ratio(1) - ratio(0)
	d.AtOnce = math.Abs(d.Inflation[Base]) <= duetTolerance && math.Abs(d.Inflation[Head]) <= duetTolerance &&
		(!throughput || math.Abs(d.Shift) <= duetTolerance)
	d.Throughput = throughput
	return d
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
