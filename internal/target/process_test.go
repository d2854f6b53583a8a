package target

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// syncBuffer is a log that the output copier and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func okServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func shellTarget(script string) config.Target {
	return config.Target{Start: &config.Start{Command: config.Command{Shell: script}}}
}

func TestStopKillsTheWholeGroup(t *testing.T) {
	var log syncBuffer
	p, err := Start(context.Background(), okServer(t), shellTarget("echo started; sleep 30 & sleep 30"), &log)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Stop()
	var members []int
	for deadline := time.Now().Add(5 * time.Second); len(members) < 3 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		members = groupMembers(t, p.PID())
	}
	if len(members) != 3 { // sh and two sleeps
		t.Fatalf("group %d has processes %v, want sh and two sleeps", p.PID(), members)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, pid := range members {
		if running(pid) {
			t.Errorf("process %d of the target still runs after Stop", pid)
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if !strings.Contains(log.String(), "[target] started\n") {
		t.Errorf("log = %q, want the target's output prefixed", log.String())
	}
}

func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("waits the full stop grace period")
	}
	p, err := Start(context.Background(), okServer(t), shellTarget("trap '' TERM; sleep 30 & wait; sleep 30"), nil)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	pid := p.PID()
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if running(pid) || len(groupMembers(t, pid)) > 0 {
		t.Fatalf("target group %d still runs after Stop", pid)
	}
	if waited := time.Since(start); waited < StopGrace {
		t.Fatalf("Stop returned after %v; a shell ignoring SIGTERM should need SIGKILL after %v", waited, StopGrace)
	}
}

func TestStartRealHTTPServerProcess(t *testing.T) {
	addr := freeAddr(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	tgt := config.Target{
		Start: &config.Start{
			Command: config.Command{Args: []string{exe, "-test.run=^$"}},
			Env:     map[string]string{demoAddrEnv: addr},
		},
		Ready: &config.Ready{Path: "/health", Timeout: config.Duration(20 * time.Second)},
	}
	base := "http://" + addr
	p, err := Start(context.Background(), base, tgt, &log)
	if err != nil {
		t.Fatalf("Start: %v\nlog:\n%s", err, log.String())
	}
	defer p.Stop()
	resp, err := http.Get(base + "/count")
	if err != nil {
		t.Fatalf("GET /count on the started target: %v", err)
	}
	resp.Body.Close()
	if p.Exited() != nil {
		t.Fatalf("target reports exited while serving: %v", p.Exited())
	}
	pid := p.PID()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if running(pid) {
		t.Fatalf("target %d still runs after Stop", pid)
	}
	if !strings.Contains(log.String(), "[target] demo service stopped") {
		t.Errorf("the server did not shut down gracefully on SIGTERM; log:\n%s", log.String())
	}
	if _, err := http.Get(base + "/health"); err == nil {
		t.Errorf("target still answers after Stop")
	}
}

func TestStartFailsWhenTargetExitsBeforeReady(t *testing.T) {
	tgt := shellTarget("echo 'cannot open database' >&2; exit 3")
	tgt.Ready = &config.Ready{Path: "/", Timeout: config.Duration(20 * time.Second)}
	start := time.Now()
	_, err := Start(context.Background(), "http://"+freeAddr(t), tgt, nil)
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepReady {
		t.Fatalf("Start = %v, want a ready StepError", err)
	}
	for _, want := range []string{"exited before it was ready", "exit status 3", "cannot open database"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("Start took %v: an early exit should fail at once, not at the readiness timeout", waited)
	}
}

func TestStartReadinessTimeout(t *testing.T) {
	tgt := shellTarget("sleep 30")
	tgt.Ready = &config.Ready{Path: "/health", Timeout: config.Duration(400 * time.Millisecond), Interval: config.Duration(50 * time.Millisecond)}
	addr := freeAddr(t)
	_, err := Start(context.Background(), "http://"+addr, tgt, nil)
	if err == nil || !strings.Contains(err.Error(), "ready: GET /health") || !strings.Contains(err.Error(), "not ready after 400ms") {
		t.Fatalf("Start = %v, want a readiness timeout naming the probe", err)
	}
	// the process that never became ready was stopped
	for _, st := range mustAllStats(t) {
		if st.PPID == os.Getpid() && !st.gone() {
			t.Errorf("child %d still runs after a failed Start", st.PID)
		}
	}
}

func TestReadinessChecksStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(503)
		w.Write([]byte(`{"status":"starting"}`))
	}))
	defer srv.Close()
	r := &config.Ready{Path: "/health", Timeout: config.Duration(300 * time.Millisecond), Interval: config.Duration(50 * time.Millisecond)}
	err := WaitReady(context.Background(), nil, srv.URL, r)
	want := `ready: GET /health → 503 {"status":"starting"}: status 503, want 200 (not ready after 300ms)`
	if err == nil || err.Error() != want {
		t.Fatalf("WaitReady = %v\nwant %s", err, want)
	}
	// without a probe, any HTTP answer means the target listens
	if err := WaitReady(context.Background(), nil, srv.URL, nil); err != nil {
		t.Fatalf("WaitReady without a probe = %v, want nil for a 503 answer", err)
	}
}

func TestExternalTargetWithPIDFile(t *testing.T) {
	pidFile := t.TempDir() + "/target.pid"
	os.WriteFile(pidFile, []byte(itoa(os.Getpid())+"\n"), 0o644)
	p, err := Start(context.Background(), okServer(t), config.Target{PIDFile: pidFile}, nil)
	if err != nil {
		t.Fatalf("Start of an external target: %v", err)
	}
	if p.PID() != os.Getpid() {
		t.Fatalf("PID = %d, want %d from the pid file", p.PID(), os.Getpid())
	}
	if err := p.Stop(); err != nil || p.Exited() != nil {
		t.Fatalf("Stop/Exited of an external target = %v/%v, want nil", err, p.Exited())
	}
}

func TestStartRejectsEmptyCommand(t *testing.T) {
	_, err := Start(context.Background(), okServer(t), config.Target{Start: &config.Start{}}, nil)
	if err == nil || !strings.Contains(err.Error(), "command is empty") {
		t.Fatalf("Start with no command = %v, want a clear error", err)
	}
}

func mustAllStats(t *testing.T) []procStat {
	t.Helper()
	all, err := allStats()
	if err != nil {
		t.Fatal(err)
	}
	return all
}
