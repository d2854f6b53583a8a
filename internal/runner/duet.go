package runner

import (
	"math"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Whether a closed phase's windows load both sides at once is decided by
// the job from its own first block (issue 46.1). Loading both at once
// measures each side for the whole of a window pair's time instead of
// half of it, but a closed phase's virtual users take all the machine
// gives, and two sides loaded that hard at once can make each pay for
// the other: each side's work per iteration then holds a share of the
// other's, which shrinks a change (Node with an in-memory N+1, hey's CPU
// per request: +83 … +92 % alone, +68 … +71 % with both loaded at once),
// and beside a busy neighbour they share what is left unequally
// (Miniflux beside a hog: throughput's block spread 13.0 % at once,
// 4.7 % alternating). So the first block measures each closed phase both
// ways, half its window pairs alternating and half at once, and
// the later blocks load both sides at once only where neither mattered:
// each side's CPU per iteration at once within duetTolerance of its own
// alternating windows (an inflation of δ shrinks a change r to about
// r/(1+δ)), and the head-to-base ratio of the phase's throughput as
// well. Anything else, a side without CPU measured among it, alternates:
// the rule errs towards the measure that cannot shrink a change.
const duetTolerance = 0.05 // in logs: a +10 % change reads at least +9.5 %

// duetSeen is the first block's log values of a closed phase by mode
// (0 alternating, 1 at once) and side.
type duetSeen struct {
	cpu, tput [2][2][]float64
	windows   int
	final     bool
}

// pairAtOnce reports whether window pair w of phase ph in block blk loads
// both sides at once: an open phase's always (Shape.AtOnce), a closed
// phase's probedAtOnce pairs in the first block, then as that block found.
func (j *abJob) pairAtOnce(ph config.PhaseLoad, blk, w int) bool {
	if !j.probes(ph) {
		return j.plan.Shape.AtOnce(ph)
	}
	if blk == 0 {
		return probedAtOnce(w)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	seen := j.duets[ph.Name]
	for i, d := range j.res.Duets {
		if d.Phase == ph.Name {
			if !seen.final { // judged again once the first look has said what is gated
				seen.final = true
				j.res.Duets[i] = j.judgeDuet(ph, seen)
			}
			return j.res.Duets[i].AtOnce
		}
	}
	return false // the first block did not measure it both ways
}

// probes reports whether the job decides phase ph from its first block:
// a closed phase of blocks whose sides can be told apart.
func (j *abJob) probes(ph config.PhaseLoad) bool {
	s := j.plan.Shape
	return s.Blocks() && s.Alternate.Why == 0 && ph.Load.Model != config.ModelOpen
}

// probedAtOnce reports whether the first block loads window pair w of a
// closed phase at once: pairs 1, 2, 5, 6, …, so that the alternating
// ones (0, 3, 4, 7, …) take turns at which side goes first.
func probedAtOnce(w int) bool { return w%4 == 1 || w%4 == 2 }

// sawWindow keeps what the first block's window pair w of a closed phase
// measured of side, for pairAtOnce's decision.
func (j *abJob) sawWindow(ph config.PhaseLoad, blk, w int, side Side, run *result.Run) {
	if blk != 0 || !j.probes(ph) {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.duets == nil {
		j.duets = map[string]*duetSeen{}
	}
	seen := j.duets[ph.Name]
	if seen == nil {
		seen = &duetSeen{}
		j.duets[ph.Name] = seen
	}
	seen.windows++
	mode := 0
	if probedAtOnce(w) {
		mode = 1
	}
	defer func() {
		if seen.windows == 2*j.plan.Shape.Windows { // the phase's last window of the block
			j.res.Duets = append(j.res.Duets, j.judgeDuet(ph, seen))
		}
	}()
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
