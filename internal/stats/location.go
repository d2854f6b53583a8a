package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ZTest is the small-sample test with calibrated noise: head and base are
// on the comparison scale (logs for ratio metrics), and
// z = d·(mean(head) − mean(base)) / sqrt(σ_b²(1+1/S_b) + σ_w²(1/n+1/m)).
// sameJob drops the between-job term (A/B in one job). It returns the
// one-sided p = 1 − Φ(z) for "head is worse".
func ZTest(head, base []float64, d Direction, nz Noise, baseJobs int, sameJob bool) (float64, error) {
	if len(head) == 0 || len(base) == 0 {
		return math.NaN(), fmt.Errorf("z-test needs values on both sides (head %d, base %d)", len(head), len(base))
	}
	if err := nz.Check(); err != nil {
		return math.NaN(), err
	}
	v := nz.SigmaW * nz.SigmaW * (1/float64(len(head)) + 1/float64(len(base)))
	if !sameJob {
		v += nz.SigmaB * nz.SigmaB * (1 + 1/float64(max(baseJobs, 1)))
	}
	diff := d.Sign() * (Mean(head) - Mean(base))
	return upperTail(diff, math.Sqrt(v), distuv.UnitNormal.Survival), nil
}

// TPrediction is the low-confidence fallback when the exact test cannot
// reach α and no noise is calibrated: a t prediction test on the
// comparison scale. With m ≥ 2 base values it uses the base spread,
// t = (mean(head) − mean(base)) / (s_base·sqrt(1/n + 1/m)) with m−1 degrees
// of freedom; with m = 1 and n ≥ 2 it uses the head spread with n−1. It
// returns the one-sided p for "head is worse".
func TPrediction(head, base []float64, d Direction) (float64, error) {
	n, m := len(head), len(base)
	var s, df float64
	switch {
	case n == 0 || m == 0:
		return math.NaN(), fmt.Errorf("t prediction test needs values on both sides (head %d, base %d)", n, m)
	case m >= 2:
		s, df = stat.StdDev(base, nil), float64(m-1)
	case n >= 2:
		s, df = stat.StdDev(head, nil), float64(n-1)
	default:
		return math.NaN(), fmt.Errorf("t prediction test needs 2 values on one side (head %d, base %d)", n, m)
	}
	diff := d.Sign() * (Mean(head) - Mean(base))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return upperTail(diff, s*math.Sqrt(1/float64(n)+1/float64(m)), t.Survival), nil
}

// upperTail returns survival(diff/scale), handling a zero scale: no spread
// means the sign of the difference decides (p = 0 worse, 1 otherwise).
func upperTail(diff, scale float64, survival func(float64) float64) float64 {
	if scale > 0 {
		return survival(diff / scale)
	}
	if diff > 0 {
		return 0
	}
	return 1
}
