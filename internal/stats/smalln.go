package stats

// maxRunsAdvice bounds the search for "need ≥ N runs".
const maxRunsAdvice = 1000

// MinP is the smallest one-sided p-value the exact U-test can reach with n
// head and m base values: 1/C(n+m, n). The rank test can only fire when
// MinP ≤ α.
func MinP(n, m int) float64 {
	if n <= 0 || m <= 0 {
		return 1
	}
	return 1 / choose(n+m, n)
}

// RunsNeeded is the smallest number of head runs for which the exact test
// can reach α against m base values, or 0 when no count up to 1000 can
// (m = 0, or α too small).
func RunsNeeded(m int, alpha float64) int {
	if m <= 0 {
		return 0
	}
	for n := 1; n <= maxRunsAdvice; n++ {
		if MinP(n, m) <= alpha {
			return n
		}
	}
	return 0
}

// choose computes C(n, k) by the multiplicative formula, which is exact in
// float64 for the sizes a gate sees, so that 1/C(20, 1) is exactly 0.05;
// it overflows to +Inf (MinP 0) for huge samples, which is harmless.
func choose(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}
