package stats

import "math"

// CV is the coefficient of variation of x: the sample standard deviation
// (n−1) over the mean; 0 for fewer than two values or a zero mean.
func CV(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	if mean := Mean(x); mean != 0 {
		return SampleSD(x) / mean
	}
	return 0
}

// pooledSD is the within-side standard deviation pooled over both sides;
// ok is false when neither side has two values.
func pooledSD(a, b []float64) (sd float64, ok bool) {
	df := max(len(a)-1, 0) + max(len(b)-1, 0)
	return math.Sqrt((sumSquares(a) + sumSquares(b)) / float64(df)), df > 0
}
