package load

import (
	"strconv"
	"testing"
	"time"
)

// The runs of one dataset epoch share a Sequence: a warm-up and windows
// in both load models, one after another on one server, never render the
// same {{seq}} or the same random value twice, and the numbers run on
// from one run to the next (0 … n-1 over all of them). A run given no
// Sequence starts again at 0, as before.
func TestRunsOfOneEpochNeverRepeatAValue(t *testing.T) {
	t.Parallel()
	log := &hitLog{}
	url := server(t, log.handler).URL
	plan := compile(t, 7, oneStep("hit", "/hit?seq={{seq}}&vu={{vu}}&r={{randString 12}}"))
	var epoch Sequence
	windows := []Options{
		closedOpts(3, 0, 150*time.Millisecond), // a warm-up window
		openOpts(200, 16, 0, 150*time.Millisecond),
		closedOpts(3, 0, 150*time.Millisecond),
		openOpts(200, 16, 50*time.Millisecond, 150*time.Millisecond),
	}
	for _, o := range windows {
		o.Seq = &epoch
		run(t, plan, url, o)
	}
	seqs, rands := map[string]int{}, map[string]int{}
	for _, h := range log.all {
		seqs[h.seq]++
		rands[h.rand]++
	}
	if len(log.all) < 40 {
		t.Fatalf("the server saw %d requests, want at least 40", len(log.all))
	}
	if len(seqs) != len(log.all) || len(rands) != len(log.all) {
		t.Errorf("%d requests carried %d distinct seq and %d distinct random values, want all distinct", len(log.all), len(seqs), len(rands))
	}
	if taken := epoch.Taken(); taken != uint64(len(log.all)) {
		t.Errorf("the epoch gave out %d numbers for %d iterations", taken, len(log.all))
	}
	for k := range len(log.all) {
		if seqs[strconv.Itoa(k)] != 1 {
			t.Errorf("seq %d rendered %d times, want once (numbers run on from run to run)", k, seqs[strconv.Itoa(k)])
			break
		}
	}

	fresh := &hitLog{}
	run(t, plan, server(t, fresh.handler).URL, closedOpts(1, 0, 50*time.Millisecond))
	if len(fresh.all) == 0 || fresh.all[0].seq != "0" {
		t.Errorf("a run with no Sequence began at seq %v, want 0", fresh.all)
	}
}
