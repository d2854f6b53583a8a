package stats

import (
	"errors"
	"math"
	"slices"
	"sort"
)

// SignedRankTest is the exact one-sided Wilcoxon signed-rank test that the
// pairs' differences d (bigger is worse) are centred above zero, and
// pBetter the mirrored one. Zeros are dropped, ties get mid-ranks, and the
// null distribution is counted exactly over all 2ⁿ sign patterns (a
// subset-sum over doubled ranks). All-zero differences: P = 1.
func SignedRankTest(d []float64) (pWorse, pBetter float64, err error) {
	if len(d) == 0 {
		return math.NaN(), math.NaN(), errors.New("signed-rank test needs at least one pair")
	}
	if err := CheckFinite(d); err != nil {
		return math.NaN(), math.NaN(), err
	}
	nz := slices.DeleteFunc(slices.Clone(d), func(x float64) bool { return x == 0 })
	if len(nz) == 0 {
		return 1, 1, nil
	}
	ranks := doubledMidRanks(nz)
	total, observed := 0, 0
	for i, r := range ranks {
		total += r
		if nz[i] > 0 {
			observed += r
		}
	}
	counts := subsetSums(ranks, total)
	all := math.Ldexp(1, len(ranks))
	var atLeast, atMost float64
	for s, c := range counts {
		if s >= observed {
			atLeast += c
		}
		if s <= observed {
			atMost += c
		}
	}
	return atLeast / all, atMost / all, nil
}

// doubledMidRanks ranks |x| from 1, ties sharing their mean rank, doubled
// so that every rank is an integer.
func doubledMidRanks(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(x[idx[a]]) < math.Abs(x[idx[b]]) })
	ranks := make([]int, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && math.Abs(x[idx[j+1]]) == math.Abs(x[idx[i]]) {
			j++
		}
		for k := i; k <= j; k++ {
			ranks[idx[k]] = i + j + 2 // 2 × the mean of ranks i+1 … j+1
		}
		i = j + 1
	}
	return ranks
}

// subsetSums counts, for every s in 0…total, the subsets of w summing to s.
func subsetSums(w []int, total int) []float64 {
	counts := make([]float64, total+1)
	counts[0] = 1
	for _, v := range w {
		for s := total; s >= v; s-- {
			counts[s] += counts[s-v]
		}
	}
	return counts
}
