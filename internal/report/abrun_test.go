package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A job whose requests failed on both sides in a phase loading both at
// once says that two sides sharing state may fail each other's checks;
// one whose failures are one side's only (a regression) does not, nor one
// whose phases all alternated.
func TestSharedStateNoteWhenBothSidesFailAtOnce(t *testing.T) {
	t.Parallel()
	runs := func(failed ...int64) []result.Run {
		var out []result.Run
		for _, n := range failed {
			out = append(out, result.Run{Requests: result.Requests{Total: 100, Failed: n, Counted: result.CountRequests}})
		}
		return out
	}
	quiet := &ABRun{Phases: []ABPhase{{Name: "capacity", AtOnce: true}}}
	busy := &ABRun{Phases: []ABPhase{{Name: "capacity"}}}
	if got := quiet.sharedStateNote(runs(0, 3), runs(2, 0)); !strings.Contains(got, "3 of 200 base, 2 of 200 head") || !strings.Contains(got, "TAILGATE_SIDE") {
		t.Errorf("both sides failed: note %q", got)
	}
	if got := busy.sharedStateNote(runs(0, 3), runs(2, 0)); got != "" {
		t.Errorf("both sides failed, every phase alternating: note %q, want none", got)
	}
	if got := quiet.sharedStateNote(runs(0, 0), runs(5, 9)); got != "" {
		t.Errorf("only the head failed: note %q, want none", got)
	}
}

// The report says which phase later blocks left out, from which block and
// in how many; nothing when every block measured every phase.
func TestSkippedNote(t *testing.T) {
	t.Parallel()
	block := func(skipLatency bool) result.Run {
		latency := result.Phase{Name: "latency", Run: result.Run{Model: result.ModelOpen}}
		if skipLatency {
			latency = result.SkippedPhase("latency", result.ModelOpen)
		}
		return result.Run{Phases: []result.Phase{{Name: "capacity", Run: result.Run{Model: result.ModelClosed}}, latency}}
	}
	var blocks []result.Run
	for i := range 6 {
		blocks = append(blocks, block(i >= 3))
	}
	if got := skippedNote(blocks); !strings.HasPrefix(got, "phase latency was left out of 3 of 6 blocks, from block 4 on, once every gated metric taken from it had decided") ||
		strings.Contains(got, "capacity") {
		t.Errorf("note %q", got)
	}
	for i := range blocks {
		blocks[i] = block(false)
	}
	if got := skippedNote(blocks); got != "" {
		t.Errorf("every phase measured, note %q; want none", got)
	}
}

// The facts of a job's run come out as the sentences a reader needs, in
// order: the blocks and how each phase ran, the restarts, the time and
// the planned budget; pairs of whole runs say why and in what order.
func TestABRunNotes(t *testing.T) {
	t.Parallel()
	blocks := &ABRun{Blocks: 5, MaxBlocks: 12, Elapsed: 61 * time.Second, Windows: 2, Window: 2 * time.Second,
		Phases:    []ABPhase{{Name: "capacity"}, {Name: "latency", AtOnce: true}},
		Restarted: true, Starts: 10, StartTime: 3 * time.Second,
		Spent: "start 3.0 s (5 %)", Planned: 9, MaxTime: "150s", Pace: 16 * time.Second}
	got := blocks.notes(Input{})
	want := []string{
		"5 blocks of at most 12 in 1m1s; in each block both sides were started once and each phase measured in 2 windows of 2s per side: phase capacity alternating between the sides (A B B A …, the first side changing from block to block); phase latency both sides loaded at the same time",
		"each side was started afresh for every block: 10 starts, 3s of starting and stopping",
		"where the time went: start 3.0 s (5 %)",
		"budget: ab.max_time (150s) allows about 9 blocks at 16s a block, fewer than ab.max_blocks (12): the verdict was planned for 9",
	}
	if len(got) != len(want) {
		t.Fatalf("%d notes, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("note %d:\n got %q\nwant %q…", i+1, got[i], want[i])
		}
	}
	whole := &ABRun{Blocks: 2, MaxBlocks: 12, Elapsed: 9 * time.Second, WholeRuns: result.Apart{Why: result.CommandLoad}, Order: []bool{true, false, false, true}}
	got = whole.notes(Input{})
	if len(got) != 1 || got[0] != "2 blocks of at most 12 in 9s, each a pair of whole runs, one side at a time, as the load tool (load.engine: command) makes a whole run each time it is started; order of runs (A = base, B = head): A B B A" {
		t.Errorf("whole runs: %q", got)
	}
	warm := &ABRun{Blocks: 3, MaxBlocks: 12, Windows: 2, Window: time.Second, Phases: []ABPhase{{Name: "capacity", AtOnce: true}},
		Warmups: []result.Warmup{{Phase: "capacity", Configured: time.Second, Slice: time.Second, Found: 3 * time.Second, Metric: result.CPUPerIteration,
			Slices: [2][]float64{{2.5, 1.8, 1.5, 1.5}, {3.4, 2.9, 2.5, 2.2}}}}}
	got = warm.notes(Input{})
	if len(got) != 2 || got[1] != "phase capacity's warm-up took 3s in every block instead of load.warmup's 1s, as the sides still got faster after it (CPU/iteration in the first block's load.warmup and each 1s after it: base 2.50 ms, 1.80 ms, 1.50 ms, 1.50 ms; head 3.40 ms, 2.90 ms, 2.50 ms, 2.20 ms)" {
		t.Errorf("a warm-up found longer: %q", got)
	}
	if got := (*ABRun)(nil).notes(Input{}); got != nil {
		t.Errorf("no A/B job: %q, want no notes", got)
	}
}

// A closed phase decided by its first block says what that block's probe found:
// each side's change of CPU per iteration when loaded together and the
// throughput ratio's where gated, or that no CPU was there to show it.
func TestDuetNote(t *testing.T) {
	t.Parallel()
	once := &result.Duet{Phase: "capacity", AtOnce: true, Measured: true, Throughput: true, Inflation: [2]float64{0.01, -0.02}, Shift: 0.03, Tolerance: 0.05}
	unmeasured := &result.Duet{Phase: "capacity", Tolerance: 0.05}
	r := &ABRun{Blocks: 3, MaxBlocks: 12, Elapsed: 30 * time.Second, Windows: 2, Window: time.Second,
		Phases: []ABPhase{{Name: "capacity", AtOnce: true, Duet: once}}}
	if got, want := r.blocksNote(), "both sides loaded at the same time, as the first block's probe of both ways found (before its windows, no part of a block): loaded together, CPU per iteration changed by +1.0 % (base) and −2.0 % (head) and the head-to-base ratio of iterations/s by +3.0 %, within ±5 %"; !strings.HasSuffix(got, want) {
		t.Errorf("note %q\nwant it to end %q", got, want)
	}
	r.Phases[0] = ABPhase{Name: "capacity", Duet: unmeasured}
	if got := r.blocksNote(); !strings.Contains(got, "alternating between the sides (A B B A") || !strings.Contains(got, "had no CPU per iteration of both sides") {
		t.Errorf("note %q: want alternating, and why", got)
	}
}

// The spread note splits each gated metric's spread into its windows' and
// the rest, and leaves out what has no windows (whole runs) or no spread.
func TestSpreadNoteSplitsTheBlocksSpread(t *testing.T) {
	look := func(own, windows float64) *gate.Look {
		return &gate.Look{Dec: stats.SeqDecision{OwnSpread: own}, WindowsSD: windows}
	}
	v := gate.Verdict{Findings: []gate.Finding{
		{Label: "CPU/iteration", Gated: true, Look: look(math.Log(1.05), math.Log(1.03))},
		{Label: "iterations/s", Gated: true, Look: look(0.04, 0)},                           // whole runs: no windows
		{Label: "latency p50", Gated: false, Look: look(0.04, 0.03)},                        // reported only
		{Key: result.LatencyP95, Label: "latency p95", Gated: true, Look: look(0.02, 0.05)}, // a quantile: the jackknife overstates it
		{Label: "request errors", Gated: true, Percent: true, Look: look(0.5, 0.6)},         // windows above the blocks' own, by chance
	}}
	want := "what a block's change spread by (SD over the blocks), and how much of it the noise within their windows explains, which a longer load.duration narrows; the rest lies between blocks and only more blocks narrow it: " +
		"CPU/iteration 5.0 % (windows 3.0 %, between blocks 4.0 %); request errors 0.50 pp (windows 0.60 pp, between blocks 0.00 pp)"
	if got := spreadNote(v); got != want {
		t.Errorf("spreadNote:\n got %s\nwant %s", got, want)
	}
	if got := spreadNote(gate.Verdict{}); got != "" {
		t.Errorf("no findings: %q, want no note", got)
	}
}
