package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/demo"
)

func demoServer(t *testing.T, opt demo.Options) (*demo.Service, string) {
	t.Helper()
	svc := demo.New(opt)
	srv := httptest.NewServer(svc)
	t.Cleanup(func() { srv.Close(); svc.Close() })
	return svc, srv.URL
}

var (
	resetRequest = &config.Action{Request: &config.Request{Method: "POST", Path: "/reset"}}
	verifyCount3 = &config.Check{
		Action: config.Action{Request: &config.Request{Path: "/count"}},
		Expect: map[string]any{"count": 3},
	}
)

func post(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("POST %s = %d", url, resp.StatusCode)
	}
}

func TestResetAndVerifyAgainstTheDemo(t *testing.T) {
	t.Parallel()
	_, base := demoServer(t, demo.Options{Work: 1})
	ctx := context.Background()
	if err := Verify(ctx, nil, base, verifyCount3, supervised(t)); err != nil {
		t.Fatalf("verify of a fresh demo: %v", err)
	}
	post(t, base+"/complaints", `{"title":"a fourth"}`)
	err := Verify(ctx, nil, base, verifyCount3, supervised(t))
	want := `dataset verify: GET /count → 200 {"count":4}: count = 4, want 3`
	if err == nil || err.Error() != want {
		t.Fatalf("verify after a 4th complaint = %v\nwant %s", err, want)
	}
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepVerify {
		t.Fatalf("verify error is %T, want *StepError with step %q", err, StepVerify)
	}
	if err := Reset(ctx, nil, base, resetRequest, supervised(t)); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if err := Verify(ctx, nil, base, verifyCount3, supervised(t)); err != nil {
		t.Fatalf("verify after reset: %v", err)
	}
}

func TestResetRequestFailures(t *testing.T) {
	t.Parallel()
	_, base := demoServer(t, demo.Options{Work: 1})
	ctx := context.Background()
	wrongPath := &config.Action{Request: &config.Request{Method: "POST", Path: "/nope"}}
	err := Reset(ctx, nil, base, wrongPath, supervised(t))
	if err == nil || !strings.HasPrefix(err.Error(), "dataset reset: POST /nope → 404") || !strings.HasSuffix(err.Error(), "status 404, want 2xx") {
		t.Fatalf("reset on a wrong path = %v", err)
	}
	wantStatus := &config.Action{Request: &config.Request{Method: "POST", Path: "/reset", Status: 204}}
	if err := Reset(ctx, nil, base, wantStatus, supervised(t)); err == nil || !strings.Contains(err.Error(), "status 200, want 204") {
		t.Fatalf("reset with an unexpected status = %v", err)
	}
	err = Reset(ctx, nil, "http://"+freeAddr(t), resetRequest, supervised(t))
	if err == nil || !strings.HasPrefix(err.Error(), "dataset reset: POST /reset: ") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("reset of an unreachable target = %v", err)
	}
	if err := Reset(ctx, nil, base, &config.Action{}, supervised(t)); err == nil || !strings.Contains(err.Error(), "neither a request nor a command") {
		t.Fatalf("reset with an empty action = %v", err)
	}
	if Reset(ctx, nil, base, nil, Children{}) != nil || Verify(ctx, nil, base, nil, Children{}) != nil || Drain(ctx, nil, base, nil) != nil {
		t.Fatal("nil reset, verify or drain should do nothing")
	}
}

func TestResetAndVerifyCommands(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { resetAndVerifyCommands(t, m.children(t)) })
	}
}

func resetAndVerifyCommands(t *testing.T, ch Children) {
	ctx := context.Background()
	ok := &config.Action{Command: &config.Command{Args: []string{"true"}}}
	if err := Reset(ctx, nil, "", ok, ch); err != nil {
		t.Fatalf("reset command `true`: %v", err)
	}
	failing := &config.Action{Command: &config.Command{Shell: "echo truncating tables; echo 'permission denied' >&2; exit 4"}}
	err := Reset(ctx, nil, "", failing, ch)
	// stdout and stderr come through two pipes: their order is not fixed.
	for _, want := range []string{"dataset reset: sh -c ", "output: ", "truncating tables", "permission denied", "exit status 4"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("failing reset command = %v, want it to contain %q", err, want)
		}
	}
	check := &config.Check{
		Action: config.Action{Command: &config.Command{Shell: `echo '{"rows": 5}'`}},
		Expect: map[string]any{"rows": 3},
	}
	err = Verify(ctx, nil, "", check, ch)
	if want := `dataset verify: sh -c "echo '{\"rows\": 5}'" → {"rows": 5}: rows = 5, want 3`; err == nil || err.Error() != want {
		t.Fatalf("verify command = %v\nwant %s", err, want)
	}
	missing := &config.Action{Command: &config.Command{Args: []string{"/no/such/reset-tool"}}}
	if err := Reset(ctx, nil, "", missing, ch); err == nil || !strings.Contains(err.Error(), "/no/such/reset-tool") {
		t.Fatalf("reset with a missing program = %v", err)
	}
}

func TestDrainWaitsForAsyncCommits(t *testing.T) {
	t.Parallel()
	svc, base := demoServer(t, demo.Options{Work: 1, Async: true, AsyncDelay: 300 * time.Millisecond})
	for _, id := range []string{"CMP-0001", "CMP-0002"} {
		post(t, base+"/complaints/"+id+"/assign", `{"assignee":"x"}`)
	}
	if svc.Counters().Pending != 2 {
		t.Fatalf("pending = %d before the drain, want 2", svc.Counters().Pending)
	}
	d := &config.Drain{
		Probe:    config.Request{Path: "/stats"},
		Until:    map[string]any{"pending": 0},
		Quiet:    config.Duration(100 * time.Millisecond),
		Timeout:  config.Duration(10 * time.Second),
		Interval: config.Duration(20 * time.Millisecond),
	}
	start := time.Now()
	if err := Drain(context.Background(), nil, base, d); err != nil {
		t.Fatalf("drain: %v", err)
	}
	if svc.Counters().Pending != 0 {
		t.Fatalf("drain returned with %d commits pending", svc.Counters().Pending)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("drain returned after %v, before the async commits (300ms) and the quiet period", waited)
	}
}

func TestDrainTimesOutOnABusyTarget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"pending": 7}`))
	}))
	defer srv.Close()
	d := &config.Drain{
		Probe:    config.Request{Path: "/stats"},
		Until:    map[string]any{"pending": 0},
		Quiet:    config.Duration(50 * time.Millisecond),
		Timeout:  config.Duration(300 * time.Millisecond),
		Interval: config.Duration(20 * time.Millisecond),
	}
	err := Drain(context.Background(), nil, srv.URL, d)
	want := `drain: GET /stats → 200 {"pending": 7}: pending = 7, want 0 (not idle for 50ms within 300ms)`
	if err == nil || err.Error() != want {
		t.Fatalf("drain = %v\nwant %s", err, want)
	}
}

func TestDrainNeedsAQuietPeriod(t *testing.T) {
	t.Parallel()
	// the probe flips between idle and busy: never idle for the quiet period
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1)%2 == 0 {
			w.Write([]byte(`{"pending": 1}`))
			return
		}
		w.Write([]byte(`{"pending": 0}`))
	}))
	defer srv.Close()
	d := &config.Drain{
		Probe:    config.Request{Path: "/stats"},
		Until:    map[string]any{"pending": 0},
		Quiet:    config.Duration(200 * time.Millisecond),
		Timeout:  config.Duration(500 * time.Millisecond),
		Interval: config.Duration(20 * time.Millisecond),
	}
	if err := Drain(context.Background(), nil, srv.URL, d); err == nil || !strings.Contains(err.Error(), "not idle for 200ms within 500ms") {
		t.Fatalf("drain on a flapping probe = %v, want a timeout", err)
	}
}

func TestDrainStopsOnCancel(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"pending": 1}`))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	d := &config.Drain{Probe: config.Request{Path: "/stats"}, Until: map[string]any{"pending": 0}}
	err := Drain(ctx, nil, srv.URL, d)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("drain after its context ended = %v, want the context's error", err)
	}
}

func TestResetCommandIsKilledAtItsDeadline(t *testing.T) {
	t.Parallel()
	// long enough for the command to start and print on a busy machine
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	marker := "tailgate-reset-test-" + itoa(os.Getpid())
	// a grandchild in the background: only killing the group reaches it
	hang := &config.Action{Command: &config.Command{Shell: "echo working; sh -c 'sleep 30; : " + marker + "' & wait"}}
	start := time.Now()
	err := Reset(ctx, nil, "", hang, supervised(t))
	if err == nil || !strings.Contains(err.Error(), "stopped after") || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "output: working") {
		t.Fatalf("hanging reset = %v, want it stopped at the deadline with its output", err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("hanging reset returned after %v", waited)
	}
	time.Sleep(100 * time.Millisecond) // SIGKILL is delivered asynchronously
	for _, st := range mustAllStats(t) {
		cmdline, _ := os.ReadFile("/proc/" + itoa(st.PID) + "/cmdline")
		if strings.Contains(string(cmdline), marker) && !st.gone() {
			t.Errorf("process %d of the reset command still runs: %q", st.PID, cmdline)
		}
	}
}

// dataset.verify.regex checks an answer that is no JSON (XML, iCalendar):
// the body, or a command's stdout, must match it; a mismatch fails the
// verify naming the regex and showing what was seen (issue 46: Radicale's
// calendar needed a curl | grep command).
func TestVerifyRegexChecksAnXMLAnswer(t *testing.T) {
	t.Parallel()
	count := atomic.Int32{}
	count.Store(300)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "PROPFIND" {
			http.Error(w, "want PROPFIND", http.StatusMethodNotAllowed)
			return
		}
		w.WriteHeader(207)
		fmt.Fprintf(w, "<multistatus xmlns=\"DAV:\"><response><prop><count>%d</count></prop></response></multistatus>", count.Load())
	}))
	t.Cleanup(srv.Close)
	cfg, err := config.Parse("v.yml", []byte(`target: {url: "http://127.0.0.1:8080"}
dataset:
  verify:
    request: {method: PROPFIND, path: /cal/, headers: {Depth: "0"}, status: 207}
    regex: '<count>300</count>'
load: {model: closed, vus: 1}
scenarios: [{steps: [{path: /}]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, check := context.Background(), cfg.Dataset.Verify
	if err := Verify(ctx, nil, srv.URL, check, supervised(t)); err != nil {
		t.Fatalf("verify of 300 events: %v", err)
	}
	count.Store(301)
	err = Verify(ctx, nil, srv.URL, check, supervised(t))
	want := `dataset verify: PROPFIND /cal/ → 207 <multistatus xmlns="DAV:"><response><prop><count>301</count></prop></response></multistatus>: the answer does not match regex "<count>300</count>"`
	if err == nil || err.Error() != want {
		t.Fatalf("verify of 301 events = %v\nwant %s", err, want)
	}
	cmd := &config.Check{Action: config.Action{Command: &config.Command{Shell: "echo 'UID:a'; echo 'UID:b'"}}, Regex: `(?m)^UID:b$`}
	if err := Verify(ctx, nil, "", cmd, supervised(t)); err != nil {
		t.Fatalf("verify command whose stdout matches: %v", err)
	}
	cmd.Regex = `^UID:c`
	if err := Verify(ctx, nil, "", cmd, supervised(t)); err == nil || !strings.Contains(err.Error(), `→ UID:a UID:b: the answer does not match regex "^UID:c"`) {
		t.Fatalf("verify command whose stdout does not match = %v", err)
	}
}
