package stats_test

import (
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A throughput drop of about 20 %, five runs against ten baseline runs: the
// exact U-test can reach α, so it judges; the floor is a fixed 6.7 % drop.
func ExampleCompare() {
	c := stats.Compare(stats.Input{
		Head:       []float64{80, 82, 79, 81, 80},
		Base:       []float64{100, 101, 99, 102, 98, 100, 103, 97, 100, 101},
		Direction:  stats.LowerIsWorse,
		Scale:      stats.Ratio,
		Alpha:      0.05,
		K:          1,
		FixedFloor: stats.ToScale(stats.Ratio, stats.LowerIsWorse, 6.7),
	})
	fmt.Println(c.Test)
	fmt.Printf("p(worse) = %.5f\n", c.PWorse)
	fmt.Printf("drop %.1f %%, floor %.1f %%\n", stats.FromScale(stats.Ratio, stats.LowerIsWorse, c.Effect),
		stats.FromScale(stats.Ratio, stats.LowerIsWorse, c.Floor))
	fmt.Println("regression:", c.PWorse <= 0.05 && c.Effect > c.Floor)
	// Output:
	// mann-whitney exact
	// p(worse) = 0.00033
	// drop 20.0 %, floor 6.7 %
	// regression: true
}
