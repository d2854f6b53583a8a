package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func closedOpts(vus int, warmup, window time.Duration) Options {
	return Options{Model: Closed, VUs: vus, Warmup: warmup, Duration: window, RequestTimeout: 2 * time.Second}
}

// lifecycle is create → get → resolve; the server hands out ids and checks
// that later steps bring back the id it gave.
func lifecycle() config.Scenario {
	return config.Scenario{Name: "lifecycle", Steps: []config.Step{
		{Name: "create", Request: config.Request{Method: "POST", Path: "/items", JSON: map[string]any{"title": "t{{seq}}"}},
			Save: map[string]config.SaveFrom{"id": {Name: "id"}}, Expect: map[string]any{"state": "open"}},
		{Name: "get", Request: config.Request{Path: "/items/{{.id}}"}, Expect: map[string]any{"id": "{{.id}}"}},
		{Name: "resolve", Request: config.Request{Method: "POST", Path: "/items/{{.id}}/resolve"}},
	}}
}

type itemServer struct {
	mu       sync.Mutex
	items    map[string]string // id → state
	next     int
	unknown  atomic.Int64 // requests naming an id the server never gave
	requests atomic.Int64
}

func (s *itemServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == "POST" && r.URL.Path == "/items" {
		s.next++
		id := fmt.Sprintf("it-%d", s.next)
		s.items[id] = "open"
		fmt.Fprintf(w, `{"id":%q,"state":"open"}`, id)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/items/")
	id, action, _ := strings.Cut(rest, "/")
	state, ok := s.items[id]
	if !ok {
		s.unknown.Add(1)
		http.Error(w, "NO SUCH ITEM", http.StatusNotFound)
		return
	}
	if action == "resolve" {
		if state != "open" {
			http.Error(w, "INVALID ACTION", http.StatusConflict)
			return
		}
		s.items[id] = "resolved"
	}
	fmt.Fprintf(w, `{"id":%q,"state":%q}`, id, s.items[id])
}

func TestClosedModelRunsLifecyclesWithSavedValues(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		items := &itemServer{items: map[string]string{}}
		srv := server(t, items.ServeHTTP)
		opt := closedOpts(4, 0, time.Second)
		opt.Client = client
		r := run(t, compile(t, 1, lifecycle()), srv.URL, opt)
		checkLifecycles(t, r, items)
	})
}

func checkLifecycles(t *testing.T, r *result.Run, items *itemServer) {
	t.Helper()
	it := r.Iterations
	if it.Completed < 4 || it.Started != it.Completed || it.Succeeded != it.Completed {
		t.Errorf("iterations %+v: want ≥ 4, all completed and succeeded", it)
	}
	if r.Requests.Total != 3*it.Completed || r.Requests.Failed != 0 {
		t.Errorf("requests %+v, want 3 × %d completed, none failed (errors %+v)", r.Requests, it.Completed, r.Errors)
	}
	for _, s := range r.Steps {
		if s.Requests != it.Completed || s.Latency.Count() != it.Completed {
			t.Errorf("step %s: %d requests, %d latencies; want %d", s.Name, s.Requests, s.Latency.Count(), it.Completed)
		}
	}
	if n := items.unknown.Load(); n != 0 {
		t.Errorf("the server saw %d requests with ids it never gave", n)
	}
	if it.Offered != 0 || it.Dropped != 0 || r.ScheduleLag != nil || r.OfferedRate != 0 {
		t.Errorf("closed model reports open-model figures: %+v, lag %v, rate %v", it, r.ScheduleLag, r.OfferedRate)
	}
	if v, _ := r.Value(result.LifecycleSuccess); v != 100 {
		t.Errorf("lifecycle success %v%%, want 100", v)
	}
	if v, ok := r.Value(result.IterationsPerSec); !ok || v <= 0 {
		t.Errorf("iterations/s = %v, %v", v, ok)
	}
}

func TestClosedModelWarmupAndThink(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { served.Add(1) })
	opt := closedOpts(2, 300*time.Millisecond, 300*time.Millisecond)
	opt.Think = 50 * time.Millisecond
	r := run(t, compile(t, 1, oneStep("a", "/")), srv.URL, opt)
	// 2 VUs × 300 ms / (50 ms think + a fast request) ≤ 12 measured.
	if n := r.Requests.Total; n < 2 || n > 14 {
		t.Errorf("measured %d requests, want 2..14 with a 50ms think time", n)
	}
	if s := served.Load(); s <= r.Requests.Total {
		t.Errorf("server saw %d requests, run reports %d: warm-up requests must be excluded", s, r.Requests.Total)
	}
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			http.Error(w, "boom: database locked", http.StatusInternalServerError)
		case "/state":
			_, _ = w.Write([]byte(`{"state":"queued"}`))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		case "/stall-body": // headers and part of the body, then nothing
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte(`{"state":`))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		}
	})
	closed := closedPort(t)
	tests := []struct {
		name, url string
		step      config.Step
		class     string
		sample    string
	}{
		{"status", srv.URL, config.Step{Name: "resolve", Request: config.Request{Path: "/500"}}, result.ErrStatus, "500 boom: database locked"},
		{"expect", srv.URL, config.Step{Name: "check", Request: config.Request{Path: "/state"}, Expect: map[string]any{"state": "done"}}, result.ErrExpect, `state = "queued", want done`},
		{"timeout", srv.URL, config.Step{Name: "wait", Request: config.Request{Path: "/slow"}}, result.ErrTimeout, "no response within 100ms"},
		{"timeout in body", srv.URL, config.Step{Name: "read", Request: config.Request{Path: "/stall-body"}}, result.ErrTimeout, "no response within 100ms"},
		// worded as http.Client words it, whichever client sends
		{"connection", closed, config.Step{Name: "dial", Request: config.Request{Path: "/"}}, result.ErrConnection,
			`Get "` + closed + `/": dial tcp ` + strings.TrimPrefix(closed, "http://") + `: connect: connection refused`},
	}
	for _, client := range clients {
		for _, tt := range tests {
			t.Run(client+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				checkErrorClass(t, client, tt.url, tt.step, tt.class, tt.sample)
			})
		}
	}
}

// checkErrorClass runs step, then a step that must never be sent, and
// checks that every iteration failed once, in class, with sample.
func checkErrorClass(t *testing.T, client, url string, step config.Step, class, sample string) {
	t.Helper()
	sc := config.Scenario{Name: "s", Steps: []config.Step{step, {Name: "after", Request: config.Request{Path: "/"}}}}
	opt := closedOpts(2, 0, 300*time.Millisecond)
	opt.Client = client
	if class == result.ErrTimeout {
		opt.RequestTimeout = 100 * time.Millisecond
	}
	r := run(t, compile(t, 1, sc), url, opt)
	if len(r.Errors) != 1 {
		t.Fatalf("errors %+v, want one class", r.Errors)
	}
	e := r.Errors[0]
	if e.Class != class || e.Step != step.Name || !strings.Contains(e.Sample, sample) {
		t.Errorf("error %+v, want class %s on step %s with sample containing %q", e, class, step.Name, sample)
	}
	if e.Count != r.Requests.Failed || e.Count != r.Requests.Total || e.Count != r.Iterations.Completed {
		t.Errorf("count %d, requests %+v, iterations %+v: every iteration fails once at its first step", e.Count, r.Requests, r.Iterations)
	}
	if r.Iterations.Succeeded != 0 || r.Steps[1].Requests != 0 {
		t.Errorf("iterations %+v, step after sent %d: an iteration stops at its failed step", r.Iterations, r.Steps[1].Requests)
	}
	if v, _ := r.Value(result.RequestErrorPct); v != 100 {
		t.Errorf("request error %% = %v, want 100", v)
	}
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// Iterations still running RequestTimeout after the window are cut: they
// count as started, not completed, and the run says so.
func TestGracePeriodCutsLongIterations(t *testing.T) {
	t.Parallel()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(200 * time.Millisecond):
		}
	})
	// 8 steps of 200ms: 1.6s, beyond the window (50ms) plus grace (1s),
	// while no single request comes near its 1s timeout.
	var steps []config.Step
	for i := range 8 {
		steps = append(steps, config.Step{Name: fmt.Sprint("s", i), Request: config.Request{Path: "/"}})
	}
	sc := config.Scenario{Name: "long", Steps: steps}
	forEachClient(t, func(t *testing.T, client string) {
		opt := closedOpts(1, 0, 50*time.Millisecond)
		opt.RequestTimeout, opt.Client = time.Second, client
		begin := time.Now()
		r := run(t, compile(t, 1, sc), srv.URL, opt)
		if took := time.Since(begin); took > 1500*time.Millisecond {
			t.Errorf("run took %v; want window 50ms + grace 1s", took)
		}
		if r.Iterations.Started != 1 || r.Iterations.Completed != 0 {
			t.Errorf("iterations %+v, want 1 started, 0 completed", r.Iterations)
		}
		if r.Requests.Failed != 0 || len(r.Errors) != 0 {
			t.Errorf("the cut request counted as a failure: %+v %+v", r.Requests, r.Errors)
		}
		if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "1 iterations were still running") {
			t.Errorf("notes %q, want the cut explained", r.Notes)
		}
	})
}

// Cancelling a run ends it at once, requests in flight included: the
// server holds each for 5s, longer than the test waits.
func TestCancelReturnsAnErrorPromptly(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		for _, opt := range []Options{openOpts(100, 8, time.Second, 10*time.Second), closedOpts(4, time.Second, 10*time.Second)} {
			opt.Client = client
			checkCancel(t, srv.URL, opt)
		}
	})
}

func checkCancel(t *testing.T, url string, opt Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	begin := time.Now()
	r, err := Run(ctx, compile(t, 1, oneStep("a", "/")), url, opt)
	if took := time.Since(begin); took > 1500*time.Millisecond {
		t.Errorf("%s: Run returned %v after cancel, want promptly", opt.Model, took-300*time.Millisecond)
	}
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Errorf("%s: Run = %v, %v; want no result and context.Canceled", opt.Model, r, err)
	}
}

func TestProgressIsReported(t *testing.T) {
	t.Parallel()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {})
	var mu sync.Mutex
	var got []Progress
	opt := openOpts(100, 8, 300*time.Millisecond, 600*time.Millisecond)
	opt.Progress = func(p Progress) { mu.Lock(); got = append(got, p); mu.Unlock() }
	r := run(t, compile(t, 1, oneStep("a", "/")), srv.URL, opt)
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || len(got) > 6 {
		t.Fatalf("%d progress calls in 0.9s, want about 4 (every 250ms, plus a final one)", len(got))
	}
	// On a loaded machine the first tick may come after the warm-up's
	// 300 ms: the phases only have to come in order, the last a measure.
	for i := 1; i < len(got); i++ {
		if got[i-1].Phase == PhaseMeasure && got[i].Phase == PhaseWarmup {
			t.Errorf("progress %d is warm-up after a measure one: %+v", i+1, got)
		}
	}
	if got[len(got)-1].Phase != PhaseMeasure {
		t.Errorf("last progress in phase %s, want measure", got[len(got)-1].Phase)
	}
	last := got[len(got)-1]
	if last.Completed != r.Iterations.Completed || last.Total != 900*time.Millisecond || last.Elapsed != last.Total {
		t.Errorf("final progress %+v, run %+v", last, r.Iterations)
	}
}

func TestOptionsMisuseIsAnError(t *testing.T) {
	t.Parallel()
	plan := compile(t, 1, oneStep("a", "/"))
	ok := openOpts(10, 1, 0, time.Second)
	tests := []struct {
		name string
		edit func(*Options)
		url  string
		want string
	}{
		{"model", func(o *Options) { o.Model = "half-open" }, "", `model "half-open"`},
		{"no pacer", func(o *Options) { o.Pacer = nil }, "", "needs a Pacer"},
		{"zero rate", func(o *Options) { o.Pacer = Constant{0} }, "", "offers no iterations"},
		{"max inflight", func(o *Options) { o.MaxInflight = 0 }, "", "max_inflight is 0"},
		{"vus", func(o *Options) { *o = closedOpts(0, 0, time.Second) }, "", "vus is 0"},
		{"duration", func(o *Options) { o.Duration = 0 }, "", "measure window"},
		{"warmup", func(o *Options) { o.Warmup = -time.Second }, "", "warmup -1s"},
		{"url", func(o *Options) {}, "localhost:8080", "absolute http"},
		{"client", func(o *Options) { o.Client = "curl" }, "", `client "curl": use "fast" or "nethttp"`},
		{"fast with a net/http client", func(o *Options) { o.Client, o.HTTPClient = ClientFast, &http.Client{} }, "", "client fast cannot send through the given net/http client"},
	}
	for _, tt := range tests {
		opt := ok
		tt.edit(&opt)
		url := tt.url
		if url == "" {
			url = "http://127.0.0.1:1"
		}
		_, err := Run(context.Background(), plan, url, opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Run error = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
	if _, err := Run(context.Background(), nil, "http://127.0.0.1:1", ok); err == nil {
		t.Error("Run with a nil plan succeeded")
	}
}

func TestFromConfig(t *testing.T) {
	t.Parallel()
	o := FromConfig(config.Load{Rate: config.Rate{PerSecond: 50}, Warmup: config.Duration(time.Second), Duration: config.Duration(5 * time.Second)})
	if o.Model != Open || o.Pacer != (Constant{50}) || o.MaxInflight != DefaultMaxInflight || o.RequestTimeout != DefaultRequestTimeout ||
		o.Warmup != time.Second || o.Duration != 5*time.Second {
		t.Errorf("FromConfig = %+v", o)
	}
	o = FromConfig(config.Load{Rate: config.Rate{PerSecond: 100}, RampFrom: &config.Rate{PerSecond: 10}, Ramp: config.Duration(time.Minute)})
	if o.Pacer != (LinearRamp{From: 10, To: 100, Over: time.Minute}) {
		t.Errorf("ramp pacer = %+v", o.Pacer)
	}
	o = FromConfig(config.Load{Model: config.ModelClosed, VUs: 7, Think: config.Duration(time.Second), Client: config.ClientNetHTTP})
	if o.Model != Closed || o.VUs != 7 || o.Think != time.Second || o.Client != ClientNetHTTP {
		t.Errorf("closed = %+v", o)
	}
}
