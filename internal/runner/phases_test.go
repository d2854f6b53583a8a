package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// phased makes cfg's runs two phases: a closed one of 4 users, then an
// open one at 20 lifecycles/s.
func phased(cfg *config.Config) {
	d := config.Duration(400 * time.Millisecond)
	cfg.Load.Phases = []config.Phase{
		{Name: config.PhaseCapacity, Model: config.ModelClosed, VUs: 4, Duration: d},
		{Name: config.PhaseLatency, Model: config.ModelOpen, Rate: config.Rate{PerSecond: 20}, MaxInflight: 16, Duration: d},
	}
}

// steps is an Observer that keeps the steps it heard.
type steps struct {
	nopObserver
	mu    sync.Mutex
	heard []string
}

func (s *steps) Step(_ int, step string) { s.mu.Lock(); s.heard = append(s.heard, step); s.mu.Unlock() }

// flakyService answers /items, failing every 7th request, and counts resets.
func flakyService(t *testing.T) (url string, resets *atomic.Int64) {
	resets = &atomic.Int64{}
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) { resets.Add(1) })
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"count":3}`)) })
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1)%7 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, resets
}

func TestPhasesTakeEachMetricFromThePhaseThatMeasuresIt(t *testing.T) {
	url, resets := flakyService(t)
	cfg := benchConfig(url, 2)
	phased(cfg)
	obs := &steps{}
	res, err := (&Benchmark{Config: cfg, Observer: obs}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if resets.Load() != 4 {
		t.Errorf("%d resets, want 4: every phase of every run starts from the dataset", resets.Load())
	}
	wantSteps := []string{"reset", "verify", "measure capacity", "reset", "verify", "measure latency"}
	if !slices.Equal(obs.heard[:6], wantSteps) {
		t.Errorf("steps of a run %q, want %q", obs.heard[:6], wantSteps)
	}
	for _, run := range res.Runs {
		if run.Model != result.ModelPhases || len(run.Phases) != 2 {
			t.Fatalf("run model %q with %d phases, want 2", run.Model, len(run.Phases))
		}
		closed, open := run.Phases[0], run.Phases[1]
		if closed.Name != config.PhaseCapacity || closed.Model != config.ModelClosed || open.Name != config.PhaseLatency || open.Model != config.ModelOpen {
			t.Fatalf("phases %s/%s, %s/%s", closed.Name, closed.Model, open.Name, open.Model)
		}
		m := run.Metrics
		for _, k := range []string{result.IterationsPerSec, result.RequestsPerSec} {
			if m[k] != closed.Metrics[k] {
				t.Errorf("%s = %g, want the closed phase's %g", k, m[k], closed.Metrics[k])
			}
		}
		// 4 users against a local server far outrun 20 offered per second
		if m[result.IterationsPerSec] < 3*open.Metrics[result.IterationsPerSec] {
			t.Errorf("capacity %g iterations/s is not the closed phase's (open phase: %g)", m[result.IterationsPerSec], open.Metrics[result.IterationsPerSec])
		}
		for _, k := range []string{result.LatencyP95, result.LatencyP50, result.IterationP95, result.DroppedPct} {
			v, ok := m[k]
			if want, has := open.Metrics[k]; !ok || !has || v != want {
				t.Errorf("%s = %g (%v), want the open phase's %g (%v)", k, v, ok, want, has)
			}
		}
		total, failed := closed.Requests.Total+open.Requests.Total, closed.Requests.Failed+open.Requests.Failed
		if run.Requests.Total != total || run.Requests.Failed != failed || failed == 0 {
			t.Fatalf("requests %+v, want the sum %d/%d (and some failed)", run.Requests, failed, total)
		}
		if want := 100 * float64(failed) / float64(total); m[result.RequestErrorPct] != want {
			t.Errorf("error rate %g %%, want %g %% over both phases", m[result.RequestErrorPct], want)
		}
		its := closed.Iterations.Completed + open.Iterations.Completed
		if want := 100 * float64(closed.Iterations.Succeeded+open.Iterations.Succeeded) / float64(its); m[result.LifecycleSuccess] != want {
			t.Errorf("lifecycle success %g %%, want %g %% over both phases", m[result.LifecycleSuccess], want)
		}
		if run.Steps[0].Requests != total || run.Window != closed.Window+open.Window {
			t.Errorf("step requests %d (want %d), window %g (want %g)", run.Steps[0].Requests, total, run.Window, closed.Window+open.Window)
		}
		if slices.Contains(run.SetByLoad, result.IterationsPerSec) || !slices.Contains(open.SetByLoad, result.IterationsPerSec) {
			t.Errorf("set by the load: run %v, open phase %v; want only the open phase's throughput", run.SetByLoad, open.SetByLoad)
		}
	}
}

func TestOpenOnlyThroughputIsSetByTheLoad(t *testing.T) {
	url, _ := flakyService(t)
	for name, tweak := range map[string]func(*config.Config){
		"no phases": func(*config.Config) {},
		"one open phase": func(c *config.Config) {
			c.Load.Phases = []config.Phase{{Name: "latency", Model: config.ModelOpen, Rate: config.Rate{PerSecond: 50}, MaxInflight: 8, Duration: config.Duration(300 * time.Millisecond)}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := benchConfig(url, 1)
			tweak(cfg)
			res, err := (&Benchmark{Config: cfg}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			run := res.Runs[0]
			for _, k := range []string{result.IterationsPerSec, result.RequestsPerSec} {
				if _, ok := run.Metrics[k]; !ok || !slices.Contains(run.SetByLoad, k) {
					t.Errorf("%s: present %v, set by load %v; want it reported and marked", k, ok, run.SetByLoad)
				}
			}
		})
	}
	cfg := benchConfig(url, 1)
	cfg.Load.Model, cfg.Load.VUs = config.ModelClosed, 2
	res, err := (&Benchmark{Config: cfg}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Runs[0].SetByLoad; len(got) != 0 {
		t.Errorf("a closed run's throughput is measured, not set by the load: %v", got)
	}
}

// The target's CPU per iteration comes from the closed phase, its peak
// memory is the largest of either phase, and the run's resources are the
// sum of the windows'.
func TestPhasesResources(t *testing.T) {
	t.Parallel()
	tgt := serviceTarget(t, t.TempDir()+"/target.env")
	r := abBenchmark(t, tgt.URL)
	r.Config.Target = tgt
	phased(r.Config)
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	closed, open := run.Phases[0], run.Phases[1]
	cpu, ok := run.Metrics[result.CPUPerIteration]
	if !ok || cpu != closed.Metrics[result.CPUPerIteration] {
		t.Errorf("CPU per iteration %g (%v), want the closed phase's %g", cpu, ok, closed.Metrics[result.CPUPerIteration])
	}
	if rss := run.Metrics[result.PeakRSS]; rss != max(closed.Metrics[result.PeakRSS], open.Metrics[result.PeakRSS]) || rss <= 0 {
		t.Errorf("peak RSS %g, phases %g and %g", rss, closed.Metrics[result.PeakRSS], open.Metrics[result.PeakRSS])
	}
	if run.Resources == nil || run.Resources.CPUSeconds != closed.Resources.CPUSeconds+open.Resources.CPUSeconds {
		t.Errorf("resources %+v, phases %+v and %+v", run.Resources, closed.Resources, open.Resources)
	}
}

// A phased run shows one progress bar over all its phases.
func TestPhasesProgressRunsOnceOverTheRun(t *testing.T) {
	url, _ := flakyService(t)
	cfg := benchConfig(url, 1)
	phased(cfg)
	var mu sync.Mutex
	var seen []load.Progress
	obs := progressFunc(func(p load.Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() })
	if _, err := (&Benchmark{Config: cfg, Observer: obs}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	total := cfg.Load.RunTime()
	var last time.Duration
	phases := map[string]bool{}
	for _, p := range seen {
		if p.Total != total || p.Elapsed < last-50*time.Millisecond {
			t.Fatalf("progress %+v after %v: want one clock over %v", p, last, total)
		}
		last = p.Elapsed
		phases[p.Phase] = true
	}
	if !phases["capacity measure"] || !phases["latency measure"] || last < total/2 {
		t.Errorf("phases seen %v, last elapsed %v of %v", phases, last, total)
	}
}

type progressFunc func(load.Progress)

func (progressFunc) RunStarted(int, int, string)       {}
func (progressFunc) Step(int, string)                  {}
func (f progressFunc) Progress(_ int, p load.Progress) { f(p) }
func (progressFunc) RunDone(int, *result.Run, error)   {}
