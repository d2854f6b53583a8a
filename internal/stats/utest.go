package stats

import (
	"errors"
	"fmt"

	moremath "github.com/aclements/go-moremath/stats"
)

// UResult is the outcome of a one-sided Mann–Whitney U-test.
type UResult struct {
	P        float64 // one-sided, for "head is worse than base"
	AllEqual bool    // every value on both sides is the same: P = 1
	// Exact is false where go-moremath approximates (ties with more than
	// 25 values on a side, or more than 50 without ties).
	Exact bool
}

// UTest runs go-moremath's one-sided Mann–Whitney U-test of "head is
// worse than base" in direction d, on raw values (ranks ignore logs).
func UTest(head, base []float64, d Direction) (UResult, error) {
	if len(head) == 0 || len(base) == 0 {
		return UResult{}, fmt.Errorf("u-test needs values on both sides (head %d, base %d)", len(head), len(base))
	}
	if err := CheckFinite(head); err != nil {
		return UResult{}, fmt.Errorf("head: %w", err)
	}
	if err := CheckFinite(base); err != nil {
		return UResult{}, fmt.Errorf("base: %w", err)
	}
	alt := moremath.LocationGreater
	if d == LowerIsWorse {
		alt = moremath.LocationLess
	}
	res, err := moremath.MannWhitneyUTest(head, base, alt)
	if errors.Is(err, moremath.ErrSamplesEqual) {
		return UResult{P: 1, AllEqual: true, Exact: true}, nil
	}
	if err != nil {
		return UResult{}, fmt.Errorf("u-test: %w", err)
	}
	return UResult{P: res.P, Exact: usesExact(head, base)}, nil
}

// usesExact mirrors go-moremath's choice between the exact U distribution
// and the normal approximation.
func usesExact(head, base []float64) bool {
	n, m := len(head), len(base)
	if n <= moremath.MannWhitneyTiesExactLimit && m <= moremath.MannWhitneyTiesExactLimit {
		return true
	}
	return !hasTies(head, base) && n <= moremath.MannWhitneyExactLimit && m <= moremath.MannWhitneyExactLimit
}

func hasTies(a, b []float64) bool {
	seen := make(map[float64]bool, len(a)+len(b))
	for _, s := range [][]float64{a, b} {
		for _, v := range s {
			if seen[v] {
				return true
			}
			seen[v] = true
		}
	}
	return false
}
