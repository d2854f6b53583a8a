package demo

import (
	"crypto/sha256"
	"math"
)

// DefaultWork is the number of hash rounds every request costs when
// Options.Work is zero: about 5 ms of one modern x86 core (see the
// package benchmarks), a stand-in for the parsing, validation and
// serialisation a real service does per call. It is large next to the
// ~0.15 ms Go's HTTP server costs per request, so that a slowdown of the
// service's own work shows in its CPU time per lifecycle.
const DefaultWork = 60000

// burn does rounds of chained SHA-256 over a 32-byte state. The work is
// deterministic, so a given Options costs the same on every run and a
// slowdown of s costs exactly s more rounds; the result is returned so the
// compiler cannot drop the loop.
func burn(rounds int) byte {
	var state [sha256.Size]byte
	for i := 0; i < rounds; i++ {
		state = sha256.Sum256(state[:])
	}
	return state[0]
}

// roundsPerRequest is the work of one request: the base work scaled by
// (1 + slowdown), rounded to whole rounds.
func roundsPerRequest(opt Options) int {
	base := opt.Work
	if base <= 0 {
		base = DefaultWork
	}
	return int(math.Round(float64(base) * (1 + opt.Slowdown)))
}
