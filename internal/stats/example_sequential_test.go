package stats_test

import (
	"fmt"
	"math"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A job judges CPU per iteration, one of 6 gated metrics, after every pair
// of runs. Head costs about 12 % more; the pairs' log differences scatter
// by a few percent. The job stops at the first look that decides.
func ExampleSeqDesign_Look() {
	head := []float64{1.19, 1.08, 1.15, 1.10, 1.13, 1.09, 1.16, 1.11}
	base := []float64{1.02, 0.99, 1.01, 1.00, 0.98, 1.01, 1.03, 0.99}
	design := stats.SeqDesign{} // α 2 % over looks and metrics, pairs 4…20
	minEffect, resolution := math.Log1p(0.05), math.Log1p(0.01)
	pct := func(x float64) float64 { return 100 * math.Expm1(x) }

	var diffs []float64
	for i := range head {
		diffs = append(diffs, math.Log(head[i]/base[i])) // higher is worse
		dec, err := design.Look(diffs, minEffect, resolution, 6)
		if err != nil {
			fmt.Println(err)
			return
		}
		if !dec.Decided() {
			fmt.Printf("%d pairs: %s (%s)\n", dec.Blocks, dec.Outcome, dec.Reason)
			continue
		}
		fmt.Printf("%d pairs: %s (%s): %+.1f %% [%+.1f, %+.1f]\n",
			dec.Blocks, dec.Outcome, dec.Reason, pct(dec.Estimate), pct(dec.Lower), pct(dec.Upper))
		fmt.Printf("with up to 20 pairs this gate detects ≥ %.1f %%\n", pct(dec.Detectable))
		break
	}
	// Output:
	// 1 pairs: continue (fewer pairs than the first look)
	// 2 pairs: continue (fewer pairs than the first look)
	// 3 pairs: continue (fewer pairs than the first look)
	// 4 pairs: continue (not yet clear)
	// 5 pairs: continue (not yet clear)
	// 6 pairs: continue (not yet clear)
	// 7 pairs: regression (worse, estimate beyond half of min_effect): +12.2 % [+3.4, +17.5]
	// with up to 20 pairs this gate detects ≥ 3.8 %
}
