package result

// Duet is what an A/B job's first block found of a closed phase measured
// both ways, its window pairs alternating and at once: Inflation is each
// side's mean log CPU per iteration at once less alternating (base,
// head), Shift the log head-to-base ratio of iterations/s at once less
// alternating, which counts where Throughput (iterations/s is gated);
// Measured is false where a side had no CPU per iteration to compare.
// AtOnce says whether the later blocks loaded both sides at once,
// Tolerance the largest |Inflation| and |Shift| that allowed it.
type Duet struct {
	Phase            string
	AtOnce, Measured bool
	Throughput       bool
	Inflation        [2]float64
	Shift, Tolerance float64
}
