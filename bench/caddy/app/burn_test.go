package main

import (
	"strconv"
	"testing"
)

var sink byte

// BenchmarkBurn times the injected work of one request at the rounds of
// build.sh's default builds and of the series of 2026-12-07, without any
// server or load tool, to set beside the clean side's CPU per iteration
// that the gate reads.
func BenchmarkBurn(b *testing.B) {
	for _, rounds := range []int{820, 950, 1650, 1900} {
		b.Run(strconv.Itoa(rounds), func(b *testing.B) {
			for b.Loop() {
				sink ^= burn(rounds)
			}
		})
	}
}
