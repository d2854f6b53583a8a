package stats

import "math"

// Scale is how the values of a metric are compared.
type Scale int

const (
	// Ratio metrics are strictly positive and compared as ratios: on logs,
	// with effects as log ratios of medians (throughput, latency, CPU).
	Ratio Scale = iota
	// Points metrics are shares in percent, which can be 0: compared as
	// differences in percentage points (error and success rates).
	Points
)

// Values puts raw values on the comparison scale: logs for Ratio metrics,
// the values themselves for Points. It fails on a value that scale cannot
// hold (a zero throughput, a NaN).
func (s Scale) Values(x []float64) ([]float64, error) {
	if s == Points {
		return x, CheckFinite(x)
	}
	return Logs(x)
}

// ToScale converts a change in the bad direction in user units (percent for
// Ratio metrics, percentage points for Points) to the comparison scale,
// where bigger is worse: 6.7 (% drop of a throughput) is −ln(1−0.067).
func ToScale(s Scale, d Direction, userWorse float64) float64 {
	switch {
	case s == Points:
		return userWorse
	case d == LowerIsWorse:
		return DropFloor(userWorse / 100)
	default:
		return RiseFloor(userWorse / 100)
	}
}

// FromScale is the inverse of ToScale: a comparison-scale effect as the
// percent change (or percentage points) in the bad direction.
func FromScale(s Scale, d Direction, w float64) float64 {
	switch {
	case s == Points:
		return w
	case d == LowerIsWorse:
		return 100 * -math.Expm1(-w)
	default:
		return 100 * math.Expm1(w)
	}
}
