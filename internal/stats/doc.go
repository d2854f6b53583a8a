// Package stats owns the pure statistics of the gate: medians, the exact
// one-sided Mann–Whitney U-test, the small-sample fallbacks (a z-test with
// calibrated noise and a t prediction test), the noise model measured by
// calibrate (within-job σ_w and between-job σ_b from a one-way
// random-effects ANOVA), noise floors and minimum detectable effects.
//
// Values passed to the tests are on the comparison scale chosen by the
// caller: logarithms for ratio metrics (throughput, latency), raw values for
// rates in percent. The package does no I/O and never panics on bad input;
// functions that can be handed unusable data return an error saying why.
// The evidence behind the formulas is shared/research/stats.md (§4–§6).
package stats
