package runner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The first block's evidence decides a closed phase: simulated first
// blocks of 4 windows a side (2 alternating, 2 at once), log noise sigma
// per window. Sides whose cost does not change when loaded together run
// at once in most jobs; sides that each pay a share of the other's work
// (an inflation of 15 %, which shrinks a +30 % change to about +13 %)
// are almost never loaded at once, however the noise falls; a throughput
// ratio that loading together shifts (a neighbour sharing unequally)
// alternates where iterations/s is gated and does not matter where not.
func TestJudgeDuet(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 1))
	sim := func(inflation, shift, sigma float64, throughput bool) float64 {
		once := 0
		const jobs = 2000
		for range jobs {
			var s duetSeen
			for mode := range 2 {
				for side := range 2 {
					for range 2 {
						s.cpu[mode][side] = append(s.cpu[mode][side], 2+float64(side)*0.3+float64(mode)*inflation+sigma*rng.NormFloat64())
						s.tput[mode][side] = append(s.tput[mode][side], 5+float64(mode*side)*shift+sigma*rng.NormFloat64())
					}
				}
			}
			if judgeDuet(&s, throughput).AtOnce {
				once++
			}
		}
		return float64(once) / jobs
	}
	for _, c := range []struct {
		name                    string
		inflation, shift, sigma float64
		throughput              bool
		lo, hi                  float64
	}{
		{"unchanged, quiet windows", 0, 0, 0.01, true, 0.97, 1},
		{"unchanged, 2 % windows", 0, 0, 0.02, true, 0.75, 1},
		{"inflated 15 %, quiet", math.Log(1.15), 0, 0.01, true, 0, 0},
		{"inflated 15 %, 2 % windows", math.Log(1.15), 0, 0.02, true, 0, 0.001},
		{"inflated 15 %, 5 % windows", math.Log(1.15), 0, 0.05, true, 0, 0.02},
		{"inflated 15 %, 10 % windows", math.Log(1.15), 0, 0.10, false, 0, 0.05},
		{"ratio shifted 15 %, gated", 0, math.Log(1.15), 0.01, true, 0, 0},
		{"ratio shifted 15 %, not gated", 0, math.Log(1.15), 0.01, false, 0.97, 1},
	} {
		if got := sim(c.inflation, c.shift, c.sigma, c.throughput); got < c.lo || got > c.hi {
			t.Errorf("%s: at once in %.1f %% of jobs, want %.1f … %.1f %%", c.name, 100*got, 100*c.lo, 100*c.hi)
		}
	}
	if d := judgeDuet(&duetSeen{}, true); d.AtOnce || d.Measured {
		t.Errorf("no CPU per iteration measured: %+v, want alternating, unmeasured", d)
	}
}

// A job's first block probes a closed phase both ways before its
// windows, its probe's first window pair alternating and its second at
// once; every block's windows, the first's included, then run as the
// probe found (a pair's two windows overlap in time when at once and do
// not when alternating), and the probe's windows are no part of a block.
func TestRunABMeasuresClosedPhaseBothWays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := serviceTarget(t, dir+"/b.env"), serviceTarget(t, dir+"/h.env")
	r := abBenchmark(t, base.URL)
	r.Config.Load.Phases = []config.Phase{{Name: "capacity", Model: config.ModelClosed, VUs: 2}}
	plan := ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 3, Restart: false,
		Shape: Shape{Windows: 2, Window: 200 * time.Millisecond, WindowWarmup: 20 * time.Millisecond}}
	res, err := r.RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Duets) != 1 || !res.Duets[0].Measured || res.Duets[0].Phase != "capacity" {
		t.Fatalf("duets %+v: want the closed phase measured both ways, CPU per iteration of both sides", res.Duets)
	}
	overlap := func(a, b result.Run) bool {
		end := func(r result.Run) time.Time { return r.Started.Add(time.Duration(r.Window * float64(time.Second))) }
		return a.Started.Before(end(b)) && b.Started.Before(end(a))
	}
	w := res.Windows
	if blocks := len(res.Base.Runs); len(w.Base) != 2*blocks || len(res.Order) != 4*blocks {
		t.Fatalf("%d window pairs, %d windows in order for %d blocks: want 2 pairs a block, the probe's left out", len(w.Base), len(res.Order), blocks)
	}
	for k := range w.Base {
		if got, want := overlap(w.Base[k], w.Head[k]), res.Duets[0].AtOnce; got != want {
			t.Errorf("block %d window pair %d: overlapping %v, want %v (duet %+v)", w.Block[k]+1, k, got, want, res.Duets[0])
		}
	}
}

// Sides that cannot be told apart while both are loaded alternate in
// every pair of every block, and no probe is judged for them; a closed
// phase alternates until its probe is judged, then runs as it found in
// every block; an open phase runs at once throughout.
func TestPairAtOnceOnlyWhereTheSidesCanBeToldApart(t *testing.T) {
	closed := config.PhaseLoad{Name: "capacity", Load: config.Load{Model: config.ModelClosed}}
	open := config.PhaseLoad{Name: "latency", Load: config.Load{Model: config.ModelOpen}}
	shared := &abJob{plan: ABPlan{Shape: Shape{Windows: 2, Alternate: result.Apart{Why: result.SamePart, At: "one part"}}}, res: &ABResult{}}
	apart := &abJob{plan: ABPlan{Shape: Shape{Windows: 2}}, res: &ABResult{}}
	if shared.probes(closed) || !apart.probes(closed) || apart.probes(open) {
		t.Fatal("want a probe of the closed phase where the sides can be told apart, and of no open phase")
	}
	if apart.pairAtOnce(closed) {
		t.Error("a closed phase not yet probed loaded at once")
	}
	apart.res.Duets = append(apart.res.Duets, apart.judgeDuet(closed, probeOf(1, 1)))
	if shared.pairAtOnce(closed) || !apart.pairAtOnce(closed) || !apart.pairAtOnce(open) {
		t.Error("shared sides loaded at once, or a phase that changed nothing alternated")
	}
	if len(shared.res.Duets) != 0 || len(apart.res.Duets) != 1 || !apart.res.Duets[0].AtOnce {
		t.Errorf("duets %+v (shared) and %+v (apart): want none, and one at once (nothing changed)", shared.res.Duets, apart.res.Duets)
	}
}

// Whether the throughput ratio counts is known before the first block:
// the policy's gated metrics say it (ABPlan.Gated), so the probe is judged
// once and the first block's windows run as the later ones (it was judged
// again after the first look, and where iterations/s was not gated the
// first block alternated and the later ones loaded both at once).
func TestProbeJudgedOnceByThePolicysGatedMetrics(t *testing.T) {
	closed := config.PhaseLoad{Name: "capacity", Load: config.Load{Model: config.ModelClosed}}
	shifted := probeOf(1, 1.2) // at once the head's share of the machine grew by a fifth, CPU alike
	for _, c := range []struct {
		gated      func(string) bool
		throughput bool
	}{
		{nil, true},
		{func(k string) bool { return k == result.CPUPerIteration }, false},
		{func(k string) bool { return k == result.IterationsPerSec }, true},
	} {
		j := &abJob{plan: ABPlan{Shape: Shape{Windows: 2}, Gated: c.gated}, res: &ABResult{}}
		j.res.Duets = append(j.res.Duets, j.judgeDuet(closed, shifted))
		d := j.res.Duets[0]
		if d.Throughput != c.throughput || d.AtOnce == c.throughput || j.pairAtOnce(closed) != d.AtOnce {
			t.Errorf("iterations/s gated %v: duet %+v, at once %v: want the shift counted only where gated, alternating then",
				c.throughput, d, j.pairAtOnce(closed))
		}
	}
}

// The windows a block needs to hold 8 lifecycles of a user are counted
// from the probe's windows of the mode the phase runs in: Radicale's
// lifecycles took about twice as long alternating as in the warm-up,
// which loads both sides at once.
func TestWindowsHoldLifecyclesAsThePhaseRuns(t *testing.T) {
	for _, atOnce := range []bool{false, true} {
		// 4 users: 2 lifecycles/s alternating (2 s each), 4/s at once (1 s each)
		seen := probeOf(2, 2)
		for mode := range seen.tput {
			for side := range seen.tput[mode] {
				for k := range seen.tput[mode][side] {
					seen.tput[mode][side][k] = math.Log(float64(2 * (mode + 1)))
				}
			}
		}
		s := Shape{Windows: 3, Window: 2 * time.Second, fill: true}
		life := seen.lifecycle(4, atOnce)
		s.holdLifecycles(life)
		want := map[bool]int{false: 6, true: 4}[atOnce] // 8 lifecycles of 2 s (1 s) in windows of 2 s, at most twice 3
		if s.Windows != want || s.Fills != 3 {
			t.Errorf("at once %v: lifecycle %s, %d windows (from %d), want %d", atOnce, life, s.Windows, s.Fills, want)
		}
		if s.holdLifecycles(10 * life); s.Windows != want {
			t.Errorf("at once %v: raised again to %d windows, want the first decision kept", atOnce, s.Windows)
		}
	}
}

// probeOf is a probe of 2 window pairs a way in which loading both at once
// leaves CPU per iteration alone and multiplies the head's iterations/s by
// headAtOnce (the base's by baseAtOnce).
func probeOf(baseAtOnce, headAtOnce float64) *duetSeen {
	seen := &duetSeen{}
	for w := range 4 {
		for side, k := range [2]float64{baseAtOnce, headAtOnce} {
			if !probedAtOnce(w) {
				k = 1
			}
			seen.saw(Side(side), w, &result.Run{Metrics: map[string]float64{result.CPUPerIteration: 1, result.IterationsPerSec: 100 * k}})
		}
	}
	return seen
}

// The probe is no part of the first block: the work counters are read
// around the block's own windows only, so the requests a closed phase's
// iteration costs read alike in every block (with the probe inside
// them, the first block's read about twice the later blocks').
func TestProbeIsNoPartOfTheFirstBlock(t *testing.T) {
	t.Parallel()
	var urls [2]string
	for side := range urls {
		var served atomic.Int64
		mux := http.NewServeMux()
		mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {})
		mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"count":3}`)) })
		mux.HandleFunc("GET /items", func(w http.ResponseWriter, _ *http.Request) { served.Add(1); w.Write([]byte(`{"ok":true}`)) })
		mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "items_served %d\n", served.Load()) })
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		urls[side] = srv.URL
	}
	target := func(url string) config.Target {
		return config.Target{URL: url, Counters: []config.CounterSource{{Name: "svc", Prometheus: &config.PrometheusSource{Path: "/metrics", Metrics: []string{"items_served"}}}}}
	}
	cfg := benchConfig(urls[0], 1)
	cfg.Load.Phases = []config.Phase{{Name: "capacity", Model: config.ModelClosed, VUs: 2}}
	plan := ABPlan{Base: target(urls[0]), Head: target(urls[1]), MaxBlocks: 3, Order: config.OrderABBA,
		Shape: Shape{Windows: 2, Window: 150 * time.Millisecond, WindowWarmup: 20 * time.Millisecond}}
	res, err := (&Benchmark{Config: cfg}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Duets) != 1 {
		t.Fatalf("duets %+v: want the closed phase probed", res.Duets)
	}
	key := result.CounterKey("svc", "items_served")
	for _, f := range []*result.File{res.Base, res.Head} {
		for i, blk := range f.Runs {
			if got, ok := blk.Metrics[key]; !ok || got < 0.8 || got > 1.25 {
				t.Errorf("block %d: %v requests per iteration (%v), want about 1, as the scenario sends", i+1, got, ok)
			}
		}
	}
}
