package gate

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain lets the collector run a quarter as often: the evidence tests
// simulate thousands of jobs, allocating runs and maps by the million, and
// spent a tenth of their CPU collecting them; their heap stays small.
func TestMain(m *testing.M) {
	debug.SetGCPercent(400)
	os.Exit(m.Run())
}
