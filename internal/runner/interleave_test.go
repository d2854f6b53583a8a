package runner

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Blocks: every block starts both sides afresh (restart) or
// keeps them for the job, resets each side's dataset once per phase of
// the block, and measures windows of both sides: alternating AB BA … with
// the first side alternating from block to block (a closed phase), or
// both at once (an open phase). A block gives one run per
// side (its windows concatenated, phase by phase) and its windows pairs,
// each marked with its block, each window one window of every phase. The work counters
// are read around each phase's windows, the growth the block's alone.
func TestRunABBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, restart := range []bool{true, false} {
		name := map[bool]string{true: "restart", false: "kept"}[restart]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tag := name
			base, head := serviceTarget(t, dir+"/b"+tag+".env"), serviceTarget(t, dir+"/h"+tag+".env")
			// A work counter that counts its own reads, per side.
			reads := dir + "/reads-" + tag + "-"
			for _, tgt := range []*config.Target{&base, &head} {
				tgt.Counters = []config.CounterSource{{Name: "cmd", Command: &config.Command{
					Shell: `f="` + reads + `$TAILGATE_SIDE"; echo "{\"reads\": $(cat "$f" 2>/dev/null | wc -l)}"; echo x >> "$f"`}}}
			}
			r := abBenchmark(t, base.URL)
			r.Config.Load.Phases = []config.Phase{
				{Name: "capacity", Model: config.ModelClosed, VUs: 2},
				{Name: "latency", Model: config.ModelOpen, Rate: config.Rate{PerSecond: 50}, MaxInflight: 8},
			}
			l := &look{}
			plan := ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 3, Restart: restart, Look: l.look, Shape: Shape{Windows: 2, Window: 150 * time.Millisecond, WindowWarmup: 20 * time.Millisecond}}
			if got := r.Resolve(plan).Shape; !got.Blocks() || got.Alternate.Why != 0 || got.Windows != 2 {
				t.Fatalf("shape %+v, want blocks of 2 windows as planned", got)
			}
			res, err := r.RunAB(context.Background(), plan)
			if err != nil {
				t.Fatal(err)
			}
			if res.Units() != 3 || res.Windows.Blocks() != 6 || res.Budget != "pairs" || !slices.Equal(res.Windows.Block, []int{0, 0, 1, 1, 2, 2}) {
				t.Fatalf("%d blocks of %d window pairs, blocks %v, budget %q; want 3 blocks of 2", res.Units(), res.Windows.Blocks(), res.Windows.Block, res.Budget)
			}
			if !slices.Equal(l.pairs, []int{2, 4, 6}) || !slices.Equal(l.final, []bool{false, false, true}) {
				t.Errorf("looks after %v pairs, final %v: want one look per block", l.pairs, l.final)
			}
			// Two phases of 2 windows a side: 8 windows a block. A probe
			// decides how the closed phase runs (duet.go): alternating,
			// the first block's first pair goes base first; windows run
			// at once (the open phase's always) end in either order.
			if len(res.Duets) != 1 || res.Duets[0].Phase != "capacity" || !res.Duets[0].AtOnce && (res.Order[0] != Base || res.Order[1] != Head) {
				t.Fatalf("window order %v, duets %+v: want the closed phase probed, and base then head first where it alternates", res.Order, res.Duets)
			}
			for k := 0; k < len(res.Order); k += 2 { // every window pair holds one window of each side
				if res.Order[k] == res.Order[k+1] || len(res.Order) != 24 {
					t.Fatalf("window order %v: want 24 windows, one of each side in every pair", res.Order)
				}
			}
			for i, w := range res.Windows.Head {
				if len(w.Phases) != 2 || w.Phases[0].Name != "capacity" || w.Phases[1].Name != "latency" || w.Index != i {
					t.Errorf("head window %d: index %d, phases %v; want one window of each phase", i, w.Index, w.Phases)
				}
				if got := w.Phases[0].Window; got < 0.1 || got > 1 { // seconds
					t.Errorf("head window %d measured %v s, want about 150 ms", i, got)
				}
			}
			for i, blk := range res.Head.Runs {
				windows := res.Windows.Head[2*i : 2*i+2]
				if len(blk.Phases) != 2 || blk.Index != i {
					t.Fatalf("head block %d: index %d, %d phases; want both phases", i, blk.Index, len(blk.Phases))
				}
				if got, want := blk.Phases[0].Iterations.Completed, windows[0].Phases[0].Iterations.Completed+windows[1].Phases[0].Iterations.Completed; got != want || got == 0 {
					t.Errorf("head block %d completed %d iterations in its capacity phase, its windows %d", i, got, want)
				}
				if got, want := blk.Phases[1].Window, windows[0].Phases[1].Window+windows[1].Phases[1].Window; math.Abs(got-want) > 1e-9 {
					t.Errorf("head block %d measured %v s of latency, its windows %v s", i, got, want)
				}
				if _, ok := blk.Metrics[result.LatencyP95]; !ok {
					t.Errorf("head block %d has no p95 of its own: %v", i, blk.Metrics)
				}
			}
			// The counters are read around each phase's windows, not
			// around every window: 2 reads a side and phase, so each
			// block grew by one read in each phase, which only the
			// block's run has.
			for _, side := range []string{"base", "head"} {
				if got := readLines(t, reads+side); got != 3*2*2 {
					t.Errorf("%s's counters read %d times, want 12 (3 blocks, 2 phases, before and after)", side, got)
				}
			}
			for i, blk := range res.Head.Runs {
				for p, ph := range blk.Phases {
					if got := ph.Counters["cmd.reads"]; got != 1 {
						t.Errorf("head block %d phase %d: counters %v, want the growth over its windows, 1", i, p, ph.Counters)
					}
				}
				n := float64(blk.Phases[0].Iterations.Completed) // the cost phase: the closed one
				if got := blk.Metrics[result.CounterKey("cmd", "reads")]; got != 1/n {
					t.Errorf("head block %d: reads per iteration %v, want 1/%v", i, got, n)
				}
			}
			for i, w := range res.Windows.Base {
				if _, ok := w.Metrics[result.CounterKey("cmd", "reads")]; ok || w.Counters != nil || w.Phases[0].Counters != nil {
					t.Errorf("base window %d has counters %v: a window reads none", i, w.Counters)
				}
			}
			for side, log := range map[string]string{"base": res.Base.TargetLog, "head": res.Head.TargetLog} {
				want := map[bool]int{true: 3, false: 1}[restart] // a process per block, or one for the job
				if pids := startedPIDs(t, log); len(slices.Compact(slices.Sorted(slices.Values(pids)))) != want || len(pids) != want {
					t.Errorf("%s started as %v, want %d processes", side, pids, want)
				}
			}
			// Windows at once are counted once: the open phase takes
			// half the time of an alternating closed one (every block's
			// closed phase two windows' time or four, as the first
			// block's probe found; the probe's time is warm-up).
			measured := time.Duration(3*2+3*map[bool]int{true: 2, false: 4}[res.Duets[0].AtOnce]) * 150 * time.Millisecond
			if got := res.Spent[TimeMeasured]; got != measured || res.Spent[TimeStart] <= 0 || res.Spent[TimePrepare] <= 0 || res.Spent[TimeWarmup] <= 0 {
				t.Errorf("time by stage %v: want %v measured, and the starts, resets and warm-ups", res.Spent, measured)
			}
		})
	}
}

// Sides that cannot be told apart while both are loaded alternate in
// every phase, and sides that cannot run at once (both started on one
// fixed port) are measured in whole runs, one side at a time; the shape
// says why.
func TestShapeAlternatesOrRunsWholeRuns(t *testing.T) {
	t.Parallel()
	pg := config.MeasurePart{Name: "postgres", PIDFile: "/run/pg.pid"}
	side := func(port string, parts ...config.MeasurePart) config.Target {
		return config.Target{URL: "http://127.0.0.1:" + port, Start: &config.Start{Command: config.Command{Shell: "true"}}, Measure: parts}
	}
	b := &Benchmark{Config: benchConfig("http://127.0.0.1:1", 1)}
	for _, c := range []struct {
		name string
		plan ABPlan
		why  result.Apart
	}{
		{"a shared part", ABPlan{Restart: true, Base: side("1", pg), Head: side("2", pg)}, result.Apart{Why: result.SamePart, At: "postgres"}},
		{"one process on both sides", ABPlan{AA: true, Base: side("1")}, result.Apart{Why: result.OneProcess}},
		{"one target elsewhere", ABPlan{Restart: true, Base: config.Target{URL: "http://127.0.0.1:9"}, Head: config.Target{URL: "http://127.0.0.1:9"}}, result.Apart{Why: result.SameTarget, At: "http://127.0.0.1:9"}},
	} {
		s := b.Resolve(c.plan).Shape
		if !s.Blocks() || s.Alternate != c.why || s.AtOnce(b.Config.Load.RunPhases()[0]) {
			t.Errorf("%s: shape %+v, want blocks alternating because %+v", c.name, s, c.why)
		}
	}
	fixed := ABPlan{Restart: true, Base: side("8080"), Head: side("8080")}
	if s := b.Resolve(fixed).Shape; s.Blocks() || s.WholeRuns != (result.Apart{Why: result.FixedAddress, At: "http://127.0.0.1:8080"}) {
		t.Errorf("both sides started on one fixed port: shape %+v, want whole runs (one side at a time) and why", s)
	}
	tool := &Benchmark{Config: benchConfig("http://127.0.0.1:1", 1)}
	tool.Config.Load.Engine = config.EngineCommand
	if s := tool.Resolve(ABPlan{Restart: true, Base: side("1"), Head: side("2")}).Shape; s.Blocks() || s.WholeRuns.Why != result.CommandLoad {
		t.Errorf("a load tool: shape %+v, want whole runs and why", s)
	}
	own := ABPlan{Restart: true, AA: true, Base: side("{{port}}")}
	if s := b.Resolve(own).Shape; s.Alternate.Why != 0 || !s.Blocks() {
		t.Errorf("an A/A job restarted every block (two processes): %+v, want both sides at once", s)
	}
	other := ABPlan{Restart: true, Base: side("1", pg), Head: side("2", config.MeasurePart{Name: "postgres", PIDFile: "/run/pg-head.pid"})}
	if s := b.Resolve(other).Shape; s.Alternate.Why != 0 {
		t.Errorf("each side its own database server: %+v, want both sides at once", s)
	}
}

// One rule, phase by phase: an open phase loads both sides at once, a
// closed one alternates; without its own process per side every phase
// alternates.
func TestShapeAtOnceByPhase(t *testing.T) {
	t.Parallel()
	side := func(port string, parts ...config.MeasurePart) config.Target {
		return config.Target{URL: "http://127.0.0.1:" + port, Start: &config.Start{Command: config.Command{Shell: "true"}}, Measure: parts}
	}
	closed := config.Phase{Name: "capacity", Model: config.ModelClosed, VUs: 2}
	open := config.Phase{Name: "latency", Model: config.ModelOpen, Rate: config.Rate{PerSecond: 50}, MaxInflight: 8}
	b := &Benchmark{Config: benchConfig("http://127.0.0.1:1", 1)}
	b.Config.Load.Phases = []config.Phase{closed, open}
	phases := b.Config.Load.RunPhases()
	s := b.Resolve(ABPlan{Restart: true, Base: side("1"), Head: side("2")}).Shape
	for _, ph := range phases {
		if got, want := s.AtOnce(ph), ph.Load.Model == config.ModelOpen; got != want {
			t.Errorf("phase %s (%s) at once %v, want %v", ph.Name, ph.Load.Model, got, want)
		}
	}
	pg := config.MeasurePart{Name: "postgres", PIDFile: "/run/pg.pid"}
	shared := b.Resolve(ABPlan{Restart: true, Base: side("1", pg), Head: side("2", pg)}).Shape
	if shared.Alternate != (result.Apart{Why: result.SamePart, At: "postgres"}) || shared.AtOnce(phases[0]) || shared.AtOnce(phases[1]) {
		t.Errorf("a shared part: shape %+v, want every phase alternating and why", shared)
	}
}

// The dataset is reset once per side and phase of a block, not per window.
func TestRunABInterleavedResetsPerBlock(t *testing.T) {
	base, head := newService(t), newService(t)
	plan := ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderRandom, MaxBlocks: 2, Shape: Shape{Windows: 3, Window: 100 * time.Millisecond}}
	res, err := (&Benchmark{Config: benchConfig(base.URL, 1)}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Windows.Blocks() != 6 || res.Units() != 2 {
		t.Fatalf("%d window pairs in %d blocks, want 2 blocks of 3", res.Windows.Blocks(), res.Units())
	}
	for name, s := range map[string]*service{"base": base, "head": head} {
		if n := s.resets.Load(); n != 2 {
			t.Errorf("%s reset %d times for 2 blocks of one phase, want 2", name, n)
		}
	}
	for k := 0; k < len(res.Order); k += 2 { // random order: still one window of each side per window pair
		if res.Order[k] == res.Order[k+1] {
			t.Errorf("window pair %d is %v %v", k/2, res.Order[k], res.Order[k+1])
		}
	}
}

// A block drains both sides at once (after resetting them one after the
// other): a side's quiet period does not wait for the other's. Each
// service here reports work pending until the other side too has been
// probed in the last second, so drains one after the other time out.
func TestBlocksDrainBothSidesAtOnce(t *testing.T) {
	t.Parallel()
	var probed [2]atomic.Int64 // unix nanoseconds of each side's last drain probe
	var urls [2]string
	for side := range urls {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {})
		mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"count":3}`)) })
		mux.HandleFunc("GET /items", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"ok":true}`)) })
		mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
			probed[side].Store(time.Now().UnixNano())
			pending := 1
			if time.Since(time.Unix(0, probed[1-side].Load())) < time.Second {
				pending = 0
			}
			fmt.Fprintf(w, `{"pending":%d}`, pending)
		})
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		urls[side] = srv.URL
	}
	cfg := benchConfig(urls[0], 1)
	cfg.Drain = &config.Drain{Probe: config.Request{Method: "GET", Path: "/stats"}, Until: map[string]any{"pending": 0},
		Quiet: config.Duration(1500 * time.Millisecond), Timeout: config.Duration(4 * time.Second), Interval: config.Duration(20 * time.Millisecond)}
	plan := ABPlan{Base: config.Target{URL: urls[0]}, Head: config.Target{URL: urls[1]}, MaxBlocks: 1, Shape: Shape{Windows: 2, Window: 100 * time.Millisecond}}
	b := &Benchmark{Config: cfg}
	if _, err := b.RunAB(context.Background(), plan); err != nil {
		t.Fatalf("drains one side at a time: %v", err)
	}
	if spent := b.SpentSoFar(); spent[TimePrepare]+spent[TimeDrain] > 5500*time.Millisecond {
		t.Errorf("prepare %v and drain %v for one phase and the block: counted once for both sides, want under 5.5s", spent[TimePrepare], spent[TimeDrain])
	}
}

// readLines is the number of lines of the file at path.
func readLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A phase that plan.SkipPhase names is left out of every block after the
// first: no warm-up, windows or counters for it, and its record in each
// window and block run is marked skipped and holds nothing measured, so
// the metrics taken from it (here the open phase's latency) are absent
// from those runs, never zero and never the other phase's; the first
// block measures every phase, and a block is never left empty. A block
// of whole runs leaves it out of both runs alike.
func TestBlocksLeaveOutDecidedPhases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ skip, whole string }{{"latency", ""}, {"capacity latency", ""}, {"latency", "whole runs under test"}} {
		skip := c.skip
		t.Run(skip+c.whole, func(t *testing.T) {
			t.Parallel()
			tag := strings.ReplaceAll(skip+c.whole, " ", "-")
			base, head := serviceTarget(t, dir+"/b"+tag+".env"), serviceTarget(t, dir+"/h"+tag+".env")
			r := abBenchmark(t, base.URL)
			d := config.Duration(200 * time.Millisecond) // a whole run's phases' (a block's windows are Window)
			r.Config.Load.Phases = []config.Phase{
				{Name: "capacity", Model: config.ModelClosed, VUs: 2, Duration: d},
				{Name: "latency", Model: config.ModelOpen, Rate: config.Rate{PerSecond: 50}, MaxInflight: 8, Duration: d},
			}
			var asked []string
			plan := ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 3, Restart: false, Look: (&look{}).look,
				SkipPhase: func(name string) bool {
					asked = append(asked, name)
					return slices.Contains(strings.Fields(skip), name)
				}, Shape: Shape{WholeRuns: wholeIf(c.whole), Windows: 2, Window: 150 * time.Millisecond, WindowWarmup: 20 * time.Millisecond}}
			res, err := r.RunAB(context.Background(), plan)
			if err != nil {
				t.Fatal(err)
			}
			if res.Units() != 3 {
				t.Fatalf("%d blocks, want 3", res.Units())
			}
			if want := []string{"capacity", "latency", "capacity", "latency"}; !slices.Equal(asked, want) {
				t.Errorf("asked about %v, want each phase of blocks 2 and 3", asked)
			}
			leftEmpty := skip == "capacity latency" // would leave nothing: every phase is measured
			for _, runs := range [][]result.Run{res.Base.Runs, res.Head.Runs} {
				for i, blk := range runs {
					wantSkipped := i > 0 && !leftEmpty
					if len(blk.Phases) != 2 || blk.Phases[0].Skipped || blk.Phases[1].Skipped != wantSkipped {
						t.Fatalf("block %d phases %+v: want capacity measured and latency skipped %v", i, blk.Phases, wantSkipped)
					}
					if blk.Phases[0].Iterations.Completed == 0 || blk.Metrics[result.IterationsPerSec] <= 0 {
						t.Errorf("block %d: capacity phase completed %d iterations, %v/s", i, blk.Phases[0].Iterations.Completed, blk.Metrics[result.IterationsPerSec])
					}
					_, hasP95 := blk.Metrics[result.LatencyP95]
					_, hasDropped := blk.Metrics[result.DroppedPct]
					if hasP95 == wantSkipped || hasDropped == wantSkipped {
						t.Errorf("block %d: p95 present %v, dropped present %v; want both %v", i, hasP95, hasDropped, !wantSkipped)
					}
					if lat := blk.Phases[1]; wantSkipped && (lat.Requests.Total != 0 || lat.Iterations.Completed != 0 || lat.Window != 0 || lat.Model != config.ModelOpen) {
						t.Errorf("block %d: skipped latency phase %+v, want its model and nothing measured", i, lat)
					}
				}
			}
			for i, w := range res.Windows.Head {
				if got, want := w.Phases[1].Skipped, res.Windows.Block[i] > 0 && !leftEmpty; got != want {
					t.Errorf("head window %d of block %d: latency skipped %v, want %v", i, res.Windows.Block[i], got, want)
				}
			}
		})
	}
}

// wholeIf is the whole runs a test asks for by naming them; "" asks for blocks.
func wholeIf(why string) result.Apart {
	return map[bool]result.Apart{true: {Why: result.RecordBase}}[why != ""]
}

// The drain at a block's end is for the next block's processes: targets
// stopped right after the block are not drained (issue 46), those kept
// for the job are.
func TestBlocksDrainOnlyKeptTargets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, restart := range []bool{true, false} {
		t.Run("restart="+strconv.FormatBool(restart), func(t *testing.T) {
			t.Parallel()
			tag := strconv.FormatBool(restart)
			base, head := serviceTarget(t, dir+"/b"+tag+".env"), serviceTarget(t, dir+"/h"+tag+".env")
			r := abBenchmark(t, base.URL)
			r.Config.Drain = &config.Drain{Probe: config.Request{Method: "GET", Path: "/count"}, Until: map[string]any{"count": 3},
				Quiet: config.Duration(200 * time.Millisecond), Timeout: config.Duration(5 * time.Second), Interval: config.Duration(20 * time.Millisecond)}
			plan := ABPlan{Base: base, Head: head, MaxBlocks: 2, Restart: restart, Shape: Shape{Windows: 2, Window: 100 * time.Millisecond}}
			if _, err := r.RunAB(context.Background(), plan); err != nil {
				t.Fatal(err)
			}
			spent := r.SpentSoFar()
			if drained := spent[TimeDrain] > 0; drained == restart || spent[TimePrepare] <= 0 {
				t.Errorf("restart %v: drain %v after the blocks, prepare %v: want a drain after a block only for targets kept", restart, spent[TimeDrain], spent[TimePrepare])
			}
		})
	}
}

// Where a job's time went covers its wall time: what no stage names (the
// look after each block here) is the stage "other" (issue 46).
func TestSpentCoversTheJobsWallTime(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"count":3}`)) })
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"ok":true}`)) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b := &Benchmark{Config: benchConfig(srv.URL, 1)}
	look := func(*ABResult, bool) bool { time.Sleep(300 * time.Millisecond); return false }
	plan := ABPlan{Base: config.Target{URL: srv.URL}, Head: config.Target{URL: srv.URL}, AA: true, MaxBlocks: 2, Look: look, Shape: Shape{Windows: 2, Window: 100 * time.Millisecond}}
	began := time.Now()
	res, err := b.RunAB(context.Background(), plan)
	wall := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	for _, d := range res.Spent {
		sum += d
	}
	if sum < wall-50*time.Millisecond || sum > wall || res.Spent[TimeOther] < 600*time.Millisecond {
		t.Errorf("stages %v sum to %v of a job of %v: want the wall time, the looks in %q", res.Spent, sum, wall, TimeOther)
	}
}

// Per phase a block resets the two sides' datasets one after the other
// (they may share a database) and then verifies both at once: nothing
// writes either dataset while they are checked, and a block waits for one
// verify instead of two.
func TestABBlockResetsInTurnVerifiesAtOnce(t *testing.T) {
	t.Parallel()
	base, head := newService(t), newService(t)
	log := filepath.Join(t.TempDir(), "steps")
	step := func(name string) *config.Command { // its start and end as nanoseconds, 400 ms apart
		return &config.Command{Shell: `echo "` + name + ` $TAILGATE_SIDE $(date +%s%N) start" >> ` + log +
			`; sleep 0.4; echo "` + name + ` $TAILGATE_SIDE $(date +%s%N) end" >> ` + log}
	}
	cfg := benchConfig(base.URL, 1)
	cfg.Dataset = config.Dataset{Reset: &config.Action{Command: step("reset")}, Verify: &config.Check{Action: config.Action{Command: step("verify")}}}
	plan := ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderABBA, MaxBlocks: 2}
	if _, err := (&Benchmark{Config: cfg}).RunAB(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	spans := map[string][][2]int64{} // "reset base": its spans in order
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		at, _ := strconv.ParseInt(f[2], 10, 64)
		k := f[0] + " " + f[1]
		if f[3] == "start" {
			spans[k] = append(spans[k], [2]int64{at, 0})
		} else {
			spans[k][len(spans[k])-1][1] = at
		}
	}
	for _, name := range []string{"reset", "verify"} {
		bs, hs := spans[name+" base"], spans[name+" head"]
		if len(bs) != 2 || len(hs) != 2 {
			t.Fatalf("%s: %d base and %d head spans, want one per block and side:\n%s", name, len(bs), len(hs), b)
		}
		for k := range bs {
			overlap := max(bs[k][0], hs[k][0]) < min(bs[k][1], hs[k][1])
			if overlap != (name == "verify") {
				t.Errorf("block %d: the sides' %ss overlap %v, want %v:\n%s", k+1, name, overlap, name == "verify", b)
			}
		}
	}
}

// Sides started afresh for every block are started (and stopped) in turn:
// base first in the first block, head first in the next, and so on.
func TestBlocksStartTheSidesInTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := serviceTarget(t, dir+"/b.env"), serviceTarget(t, dir+"/h.env")
	for _, tgt := range []*config.Target{&base, &head} {
		tgt.Start.Command.Shell = `echo "$TAILGATE_SIDE" >> "` + dir + `/starts"; ` + tgt.Start.Command.Shell
	}
	plan := ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 3, Restart: true, Shape: Shape{Windows: 2, Window: 100 * time.Millisecond}}
	if _, err := abBenchmark(t, base.URL).RunAB(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir + "/starts")
	if got := strings.Fields(string(b)); err != nil || !slices.Equal(got, []string{"base", "head", "head", "base", "base", "head"}) {
		t.Errorf("the sides started in the order %q (%v), want base first in blocks 1 and 3, head first in block 2", got, err)
	}
}
