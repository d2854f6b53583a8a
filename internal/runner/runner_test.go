package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// TestMain lets the test binary stand in for a user's load tool
// (engine: command): with TAILGATE_TEST_TOOL set it sends requests to
// $TAILGATE_TARGET_URL and writes a k6 --summary-export file to
// $TAILGATE_OUTPUT.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		// caught, not ignored: an ignored signal would stay ignored in the command
		signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, os.Interrupt)
		os.Exit(target.Supervise(os.Args[2:]))
	}
	if addr := os.Getenv(serveEnv); addr != "" {
		os.Exit(serveService(addr))
	}
	if os.Getenv("TAILGATE_TEST_TOOL") != "" {
		os.Exit(fakeLoadTool())
	}
	os.Exit(m.Run())
}

func fakeLoadTool() int {
	const n = 40
	start := time.Now()
	var lat []float64
	for i := 0; i < n; i++ {
		t0 := time.Now()
		resp, err := http.Get(os.Getenv("TAILGATE_TARGET_URL") + "/items")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		resp.Body.Close()
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(lat)
	secs := time.Since(start).Seconds()
	summary := map[string]any{"metrics": map[string]any{
		"http_reqs":         map[string]any{"count": n, "rate": n / secs},
		"http_req_duration": map[string]any{"avg": lat[n/2], "min": lat[0], "med": lat[n/2], "max": lat[n-1], "p(90)": lat[n*9/10], "p(95)": lat[n*95/100]},
		"http_req_failed":   map[string]any{"passes": 0, "fails": n, "value": 0},
		"iterations":        map[string]any{"count": n, "rate": n / secs},
	}}
	b, _ := json.Marshal(summary)
	if err := os.WriteFile(os.Getenv("TAILGATE_OUTPUT"), b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("fake tool: run", os.Getenv("TAILGATE_RUN"), "of", os.Getenv("TAILGATE_RUNS"))
	return 0
}

// service is a target with a resettable dataset: /reset, /count, /items.
type service struct {
	*httptest.Server
	resets, items atomic.Int64
	count         atomic.Int64 // what /count answers
	mu            sync.Mutex
	hits          []string // "reset" and "load" in the order they came
}

func newService(t *testing.T) *service {
	s := &service{}
	s.count.Store(3)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, r *http.Request) { s.resets.Add(1); s.log("reset") })
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, `{"count":%d}`, s.count.Load()) })
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		if s.items.Add(1) == 1 {
			s.log("load")
		}
		w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *service) log(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits = append(s.hits, what)
}

func benchConfig(url string, runs int) *config.Config {
	return &config.Config{
		Name:   "items",
		Seed:   1,
		Target: config.Target{URL: url},
		Dataset: config.Dataset{
			Reset:  &config.Action{Request: &config.Request{Method: "POST", Path: "/reset"}},
			Verify: &config.Check{Action: config.Action{Request: &config.Request{Method: "GET", Path: "/count"}}, Expect: map[string]any{"count": 3}},
		},
		Load: config.Load{
			Engine: config.EngineTailgate, Model: config.ModelOpen, Rate: config.Rate{PerSecond: 100}, MaxInflight: 16,
			Duration: config.Duration(200 * time.Millisecond), Runs: runs, RequestTimeout: config.Duration(2 * time.Second),
		},
		Scenarios: []config.Scenario{{Name: "read", Weight: 1, Steps: []config.Step{{Name: "items", Request: config.Request{Method: "GET", Path: "/items"}}}}},
	}
}

// recorder is an Observer that keeps what it heard.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (o *recorder) add(s string) { o.mu.Lock(); o.events = append(o.events, s); o.mu.Unlock() }
func (o *recorder) RunStarted(run, runs int, label string) {
	o.add(fmt.Sprintf("start %d/%d %s", run+1, runs, label))
}
func (o *recorder) Step(int, string)            {}
func (o *recorder) Progress(int, load.Progress) {}
func (o *recorder) RunDone(run int, r *result.Run, err error) {
	o.add(fmt.Sprintf("done %d ok=%v", run+1, err == nil && r != nil))
}

func TestRunResetsAndVerifiesBeforeEveryRun(t *testing.T) {
	svc := newService(t)
	obs := &recorder{}
	r := &Benchmark{Config: benchConfig(svc.URL, 3), Observer: obs}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 || svc.resets.Load() != 3 {
		t.Fatalf("%d runs and %d resets, want 3 and 3", len(res.Runs), svc.resets.Load())
	}
	for i, run := range res.Runs {
		if run.Index != i || run.Requests.Total == 0 || run.Metrics[result.IterationsPerSec] <= 0 {
			t.Errorf("run %d: index %d, %d requests, metrics %v", i, run.Index, run.Requests.Total, run.Metrics)
		}
	}
	if res.DefinitionHash == "" || res.Benchmark != "items" || res.Source != "tailgate" {
		t.Errorf("file header: %+v", res)
	}
	want := []string{"start 1/3 ", "done 1 ok=true", "start 2/3 ", "done 2 ok=true", "start 3/3 ", "done 3 ok=true"}
	if !slices.Equal(obs.events, want) {
		t.Errorf("observer heard %q, want %q", obs.events, want)
	}
}

func TestRunStopsWhenTheDatasetDoesNotVerify(t *testing.T) {
	svc := newService(t)
	svc.count.Store(5)
	obs := &recorder{}
	r := &Benchmark{Config: benchConfig(svc.URL, 3), Observer: obs}
	res, err := r.Run(context.Background())
	var se *target.StepError
	if res != nil || !errors.As(err, &se) || se.Step != target.StepVerify {
		t.Fatalf("Run = %v, %v; want no result and a dataset verify error", res, err)
	}
	if svc.items.Load() != 0 {
		t.Errorf("load was sent (%d requests) although the dataset did not verify", svc.items.Load())
	}
	if want := []string{"start 1/3 ", "done 1 ok=false"}; !slices.Equal(obs.events, want) {
		t.Errorf("observer heard %q, want %q: a failed run must still end", obs.events, want)
	}
}

func TestRunIsCancelledWithoutAResult(t *testing.T) {
	svc := newService(t)
	cfg := benchConfig(svc.URL, 3)
	cfg.Load.Duration = config.Duration(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := (&Benchmark{Config: cfg}).Run(ctx)
	if res != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, %v; want no result and the context's error", res, err)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("Run took %v to stop", time.Since(start))
	}
}

func TestOrder(t *testing.T) {
	t.Parallel()
	// The order of a block's window pairs (a block of whole runs has one).
	Order := func(kind string, pairs int, seed int64) []Side {
		return (&abJob{plan: ABPlan{Order: kind}}).windowOrder(0, pairs, rand.New(rand.NewPCG(uint64(seed), 0x1e)))
	}
	abba := Order(config.OrderABBA, 3, 1)
	if want := []Side{Base, Head, Head, Base, Base, Head}; !slices.Equal(abba, want) {
		t.Errorf("abba order = %v, want %v", abba, want)
	}
	r1, r2 := Order(config.OrderRandom, 50, 7), Order(config.OrderRandom, 50, 7)
	if !slices.Equal(r1, r2) {
		t.Error("random order is not reproducible from its seed")
	}
	if slices.Equal(r1, Order(config.OrderRandom, 50, 8)) {
		t.Error("random order does not depend on the seed")
	}
	for p := 0; p < 50; p++ { // every pair holds one run of each side
		if r1[2*p] == r1[2*p+1] {
			t.Fatalf("pair %d is %v %v", p, r1[2*p], r1[2*p+1])
		}
	}
}

func TestRunABInterleavesTwoTargets(t *testing.T) {
	base, head := newService(t), newService(t)
	cfg := benchConfig(base.URL, 2)
	obs := &recorder{}
	r := &Benchmark{Config: cfg, Observer: obs}
	res, err := r.RunAB(context.Background(), ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderABBA, MaxBlocks: 2, Restart: true, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Base.Runs) != 2 || len(res.Head.Runs) != 2 || base.resets.Load() != 2 || head.resets.Load() != 2 {
		t.Fatalf("runs %d/%d, resets %d/%d; want 2 of each", len(res.Base.Runs), len(res.Head.Runs), base.resets.Load(), head.resets.Load())
	}
	want := []string{"start 1/4 base", "done 1 ok=true", "start 2/4 head", "done 2 ok=true", "start 3/4 head", "done 3 ok=true", "start 4/4 base", "done 4 ok=true"}
	if !slices.Equal(obs.events, want) {
		t.Errorf("order heard %q, want %q", obs.events, want)
	}
	if res.Base.Runs[1].Index != 1 || res.Head.Runs[1].Index != 1 {
		t.Errorf("run indexes are per side: base %d, head %d", res.Base.Runs[1].Index, res.Head.Runs[1].Index)
	}
}

func TestRunABWithAAMeasuresTheBaseOnBothSides(t *testing.T) {
	base, head := newService(t), newService(t)
	r := &Benchmark{Config: benchConfig(base.URL, 2)}
	res, err := r.RunAB(context.Background(), ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, AA: true, Order: config.OrderABBA, MaxBlocks: 2, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
	if err != nil {
		t.Fatal(err)
	}
	if head.items.Load() != 0 || len(res.Head.Runs) != 2 || base.resets.Load() != 4 {
		t.Fatalf("head target got %d requests, base %d resets: A/A must measure the base on both sides", head.items.Load(), base.resets.Load())
	}
}

func TestEngineCommandImportsTheToolsOutput(t *testing.T) {
	svc := newService(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out", "summary.json")
	cfg := benchConfig(svc.URL, 2)
	cfg.Scenarios = nil
	cfg.Load = config.Load{
		Engine: config.EngineCommand, Runs: 2, Output: out, Format: "k6-summary-export",
		Command:        &config.Command{Shell: "TAILGATE_TEST_TOOL=1 " + exe},
		CommandTimeout: config.Duration(30 * time.Second),
	}
	res, err := (&Benchmark{Config: cfg}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || svc.resets.Load() != 2 || svc.items.Load() != 80 {
		t.Fatalf("%d runs, %d resets, %d requests; want 2, 2, 80", len(res.Runs), svc.resets.Load(), svc.items.Load())
	}
	for _, run := range res.Runs {
		if run.Requests.Total != 40 || run.Metrics[result.LatencyP95] <= 0 || run.Metrics[result.IterationsPerSec] <= 0 {
			t.Errorf("imported run: %d requests, metrics %v", run.Requests.Total, run.Metrics)
		}
	}
	// The reset must come before the tool's load in every run.
	if want := []string{"reset", "load", "reset"}; !slices.Equal(svc.hits[:3], want) {
		t.Errorf("order of events %q, want a reset before the load", svc.hits)
	}
}

func TestEngineCommandThatWritesNothingIsAnError(t *testing.T) {
	svc := newService(t)
	cfg := benchConfig(svc.URL, 2)
	cfg.Scenarios = nil
	cfg.Load = config.Load{Engine: config.EngineCommand, Runs: 2, Output: filepath.Join(t.TempDir(), "none.json"),
		Command: &config.Command{Shell: "exit 0"}, CommandTimeout: config.Duration(10 * time.Second)}
	res, err := (&Benchmark{Config: cfg}).Run(context.Background())
	var se *target.StepError
	if res != nil || !errors.As(err, &se) || se.Step != target.StepLoad {
		t.Fatalf("Run = %v, %v; want a %q error and no result", res, err, target.StepLoad)
	}
}
