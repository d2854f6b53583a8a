// Package stats owns the pure statistics of the gate: the rank tests and
// their small-sample fallbacks, the noise model calibrate measures, noise
// floors, detectable effects, the sequential A/B design and the change
// points of a series of jobs. Compare is the one place a test is chosen;
// what its result means is the caller's policy (package gate). Tests below
// Compare take values on the comparison scale (logs for ratio metrics,
// points for rates). No I/O; bad input is an error, never a panic. The
// evidence behind the formulas is shared/research/stats.md (§4–§6).
package stats
