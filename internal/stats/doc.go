// Package stats owns the pure statistics of the gate: medians, the exact
// one-sided Mann–Whitney U-test, the exact signed-rank test on pairs, the
// small-sample fallbacks (a z-test with calibrated noise and a t prediction
// test), the noise model measured by calibrate (within-job σ_w and
// between-job σ_b from a one-way random-effects ANOVA), noise floors,
// minimum detectable effects, and the change points of a series of jobs
// over time (E-divisive means with a permutation test, ChangePoints).
//
// Compare is the one place a test is chosen: the caller states what it has
// for a metric (unpaired samples or pairs, calibrated noise or none, how
// the floor is set) and gets the effect, both one-sided p-values, the
// floor, the detectable effect and the Warnings that limit them; deciding
// what they mean is the caller's policy (package gate).
//
// Compare takes raw values and a Scale; the lower-level tests take values
// on the comparison scale: logarithms for ratio metrics (throughput,
// latency), raw values for rates in percent. The package does no I/O and never panics on bad input;
// functions that can be handed unusable data return an error saying why.
// The evidence behind the formulas is shared/research/stats.md (§4–§6).
package stats
