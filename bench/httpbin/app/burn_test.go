package main

import (
	"strconv"
	"testing"
)

var sink byte

// BenchmarkBurn times the injected work of one request at the rounds of
// build.sh's default builds: a lifecycle of four requests gains four
// times this, measured without any server or load tool, to set beside the
// clean side's CPU per iteration that the gate reads (bench/decide/RESULTS.md).
func BenchmarkBurn(b *testing.B) {
	for _, rounds := range []int{23, 47} {
		b.Run(strconv.Itoa(rounds), func(b *testing.B) {
			for b.Loop() {
				sink ^= burn(rounds)
			}
		})
	}
}
