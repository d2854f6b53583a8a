package main

import (
	"strconv"
	"testing"
)

// BenchmarkBurn times the injected work of one request at the rounds of
// build.sh's builds: the CPU a lifecycle of five requests gains, measured
// without any server or load tool (bench/decide/RESULTS.md compares it
// with what the gate and the peer read).
func BenchmarkBurn(b *testing.B) {
	for _, rounds := range []int{500, 1000} {
		b.Run(strconv.Itoa(rounds), func(b *testing.B) {
			for b.Loop() {
				burn(rounds)
			}
		})
	}
}
