package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ZTest is the small-sample test with calibrated noise, on the comparison
// scale: z = d·(mean(head) − mean(base)) / sqrt(σ_b²(1+1/S_b) + σ_w²(1/n+1/m)),
// without the σ_b term when sameJob; p = 1 − Φ(z) for "head is worse".
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

// TPrediction is the low-confidence fallback without calibrated noise
// where the exact test cannot reach α, on the comparison scale:
// t = (mean(head) − mean(base)) / (s·sqrt(1/n + 1/m)) with the base's
// spread (m−1 df), or with one base value the head's (n−1 df); the
// one-sided p of "head is worse".
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
