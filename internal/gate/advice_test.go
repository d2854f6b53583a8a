package gate

import (
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The warnings that advise calibrating name the caller's command where it
// has its own (the demo's --calibrate), and tailgate calibrate elsewhere.
func TestCalibrateAdviceNamesTheCommand(t *testing.T) {
	t.Parallel()
	base := runsOf(result.IterationsPerSec, 100, 101, 99, 102, 98, 100)
	head := runsOf(result.IterationsPerSec, 100, 99, 101, 100, 102)
	p := Policy{Metrics: []string{result.IterationsPerSec}}
	for _, tc := range []struct{ cmd, want, not string }{
		{"", "run tailgate calibrate to measure", "demo"},
		{"tailgate demo --calibrate 10", "run tailgate demo --calibrate 10 to measure", "run tailgate calibrate"},
	} {
		p.Context.CalibrateCommand = tc.cmd
		v := Judge(base, head, p)
		w := warningText(v.Warnings, WarnDefaultFloors)
		if !strings.Contains(w, tc.want) || strings.Contains(w, tc.not) {
			t.Errorf("command %q: default-floors warning %q, want %q and not %q", tc.cmd, w, tc.want, tc.not)
		}
	}
}

func warningText(ws []stats.Warning, code stats.WarningCode) string {
	for _, w := range ws {
		if w.Code == code {
			return w.Message
		}
	}
	return ""
}
