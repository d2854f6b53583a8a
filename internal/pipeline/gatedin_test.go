package pipeline

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The runner asks after the first look whether iterations/s is gated,
// so that a closed phase's first block counts the throughput ratio only
// where the verdict reads it; before any look every metric may be.
func TestGatedIn(t *testing.T) {
	v := gate.Verdict{Findings: []gate.Finding{{Key: result.IterationsPerSec}, {Key: result.CPUPerIteration, Gated: true}}}
	if gatedIn(v, result.IterationsPerSec) || !gatedIn(v, result.CPUPerIteration) || gatedIn(v, result.LatencyP95) || !gatedIn(gate.Verdict{}, result.IterationsPerSec) {
		t.Error("gatedIn: want iterations/s not gated, CPU gated, p95 unknown to this look, and everything before the first look")
	}
}
