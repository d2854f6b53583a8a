package stats

import (
	"fmt"
	"math"
	"slices"
)

// Direction says which way a metric gets worse.
type Direction int

const (
	// HigherIsWorse: latencies, error rates, CPU.
	HigherIsWorse Direction = 1
	// LowerIsWorse: throughput, success rates.
	LowerIsWorse Direction = -1
)

// Sign is +1 when higher is worse and −1 when lower is worse.
func (d Direction) Sign() float64 {
	if d == LowerIsWorse {
		return -1
	}
	return 1
}

// Median returns the sample median (the mean of the two middle values for
// an even count) without modifying x; NaN for an empty sample.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

// Mean returns the arithmetic mean; NaN for an empty sample.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// SampleSD is the sample standard deviation (n−1); 0 for fewer than two
// values.
func SampleSD(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	return math.Sqrt(sumSquares(x) / float64(len(x)-1))
}

// CV is the coefficient of variation of x: the sample standard deviation
// (n−1) over the mean; 0 for fewer than two values or a zero mean.
func CV(x []float64) float64 {
	if mean := Mean(x); len(x) >= 2 && mean != 0 {
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

// sumSquares is the sum of squared deviations of x from its mean.
func sumSquares(x []float64) float64 {
	m := Mean(x)
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s
}

// Logs returns the natural logarithms of x, or an error naming the first
// value that is not strictly positive and finite (ratio metrics only).
func Logs(x []float64) ([]float64, error) {
	out := make([]float64, len(x))
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, &ValueError{Index: i, Value: v, Want: "a positive finite value"}
		}
		out[i] = math.Log(v)
	}
	return out, nil
}

// CheckFinite returns an error naming the first value that is NaN or ±Inf.
func CheckFinite(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &ValueError{Index: i, Value: v, Want: "a finite value"}
		}
	}
	return nil
}

// ValueError reports a sample value the statistics cannot use.
type ValueError struct {
	Index int
	Value float64
	Want  string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("value %g at index %d is not %s", e.Value, e.Index, e.Want)
}
