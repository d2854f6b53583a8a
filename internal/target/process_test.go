package target

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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

// modes are the two ways children start: under the supervisor (what the
// CLI does) and directly (the fallback without one).
var modes = []struct {
	name     string
	children func(*testing.T) Children
}{
	{"supervised", supervised},
	{"direct", func(*testing.T) Children { return direct() }},
}

func TestStopKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			tgt, url := serverTarget(t, "echo started; sleep 30 & $SERVE")
			log := filepath.Join(t.TempDir(), "target.log")
			var live syncBuffer
			p, err := Start(context.Background(), url, tgt, StartOptions{Children: m.children(t), LogPath: log, Live: &live})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			defer p.Stop()
			members := groupMembers(t, p.pgid)
			want := 3 // sh, sleep, the server
			if m.name == "supervised" {
				want++ // and the supervisor, which leads the group
			}
			if len(members) != want {
				t.Fatalf("group %d has processes %v, want %d", p.pgid, members, want)
			}
			if !running(p.PID()) || p.PID() == p.pgid && m.name == "supervised" {
				t.Fatalf("PID %d (group %d): want the running command's own pid, not the supervisor's", p.PID(), p.pgid)
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
			if !strings.Contains(live.String(), "[target] started\n") {
				t.Errorf("live output = %q, want the target's output prefixed", live.String())
			}
			b, _ := os.ReadFile(log)
			if !strings.HasPrefix(string(b), "started\n") || !strings.Contains(string(b), "demo service stopped") {
				t.Errorf("log file = %q, want the target's whole output, unprefixed, to its graceful end", b)
			}
			if p.LogPath() != log {
				t.Errorf("LogPath = %q, want %q", p.LogPath(), log)
			}
		})
	}
}

func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("waits the full stop grace period")
	}
	t.Parallel()
	// the server stops on SIGTERM; the shell and its last sleep ignore it
	tgt, url := serverTarget(t, "trap '' TERM; $SERVE & wait; sleep 30")
	p, err := Start(context.Background(), url, tgt, StartOptions{Children: supervised(t)})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	pgid := p.pgid
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if running(p.PID()) || len(groupMembers(t, pgid)) > 0 {
		t.Fatalf("target group %d still runs after Stop: %v", pgid, groupMembers(t, pgid))
	}
	if waited := time.Since(start); waited < StopGrace {
		t.Fatalf("Stop returned after %v; a shell ignoring SIGTERM should need SIGKILL after %v", waited, StopGrace)
	}
}

func TestStartRealHTTPServerProcess(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			addr := freeAddr(t)
			var live syncBuffer
			tgt := config.Target{
				Start: &config.Start{
					Command: config.Command{Args: []string{testExe(t), "-test.run=^$"}},
					Env:     map[string]string{demoAddrEnv: addr},
				},
				Ready: &config.Ready{Path: "/health", Timeout: config.Duration(20 * time.Second)},
			}
			base := "http://" + addr
			p, err := Start(context.Background(), base, tgt, StartOptions{Children: m.children(t), Live: &live})
			if err != nil {
				t.Fatalf("Start: %v\nlog:\n%s", err, live.String())
			}
			defer p.Stop()
			resp, err := http.Get(base + "/count")
			if err != nil {
				t.Fatalf("GET /count on the started target: %v", err)
			}
			resp.Body.Close()
			if p.Exited() != nil || p.Measurable() != nil {
				t.Fatalf("target reports exited %v, not measurable %v while serving", p.Exited(), p.Measurable())
			}
			pid := p.PID()
			if err := p.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if running(pid) {
				t.Fatalf("target %d still runs after Stop", pid)
			}
			if !strings.Contains(live.String(), "[target] demo service stopped") {
				t.Errorf("the server did not shut down gracefully on SIGTERM; log:\n%s", live.String())
			}
			if _, err := http.Get(base + "/health"); err == nil {
				t.Errorf("target still answers after Stop")
			}
		})
	}
}

func TestStartFailsWhenTargetExitsBeforeReady(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			// more lines than an error quotes: only the last ones are shown
			tgt := shellTarget("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo line $i; done; echo 'cannot open database' >&2; exit 3")
			tgt.Ready = &config.Ready{Path: "/", Timeout: config.Duration(20 * time.Second)}
			log := filepath.Join(t.TempDir(), "target.log")
			start := time.Now()
			_, err := startOnFreeAddr(t, tgt, StartOptions{Children: m.children(t), LogPath: log})
			var se *StepError
			if !errors.As(err, &se) || se.Step != StepReady {
				t.Fatalf("Start = %v, want a ready StepError", err)
			}
			for _, want := range []string{"exited before it was ready", "exit status 3", "line 12 ⏎ cannot open database", "(all of it in " + log + ")"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "line 2 ") {
				t.Errorf("error %q quotes more than the last lines", err)
			}
			if b, _ := os.ReadFile(log); !strings.Contains(string(b), "line 1\n") {
				t.Errorf("log file = %q, want all of the output", b)
			}
			if waited := time.Since(start); waited > 10*time.Second {
				t.Errorf("Start took %v: an early exit should fail at once, not at the readiness timeout", waited)
			}
		})
	}
}

func TestStartReadinessTimeout(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	tgt := shellTarget(`echo $$ > "` + pidFile + `"; exec sleep 30`)
	// long enough for the script to write its pid on a busy machine
	tgt.Ready = &config.Ready{Path: "/health", Timeout: config.Duration(2 * time.Second), Interval: config.Duration(50 * time.Millisecond)}
	_, err := startOnFreeAddr(t, tgt, StartOptions{Children: supervised(t)})
	if err == nil || !strings.Contains(err.Error(), "ready: GET /health") || !strings.Contains(err.Error(), "not ready after 2s") {
		t.Fatalf("Start = %v, want a readiness timeout naming the probe", err)
	}
	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	// the process that never became ready was stopped
	if pid := strings.TrimSpace(string(b)); running(atoi(t, pid)) {
		t.Errorf("target %s still runs after a failed Start", pid)
	}
}

func TestStartRefusesATakenPort(t *testing.T) {
	t.Parallel()
	// another process (this test's) already listens on the target's port
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	marker := filepath.Join(t.TempDir(), "started")
	tgt := shellTarget(`touch "` + marker + `"; sleep 30`)
	_, err = Start(context.Background(), "http://"+ln.Addr().String(), tgt, StartOptions{Children: supervised(t)})
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepStart {
		t.Fatalf("Start on a taken port = %v, want a start StepError", err)
	}
	_, port, _ := strings.Cut(ln.Addr().String(), ":")
	for _, want := range []string{"port " + port + " of http://" + ln.Addr().String() + " is already in use by pid " + itoa(os.Getpid()) + " (", "give the target another port"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the target was started although its port was taken")
	}
}

func TestStartRefusesAStrangerThatAnswers(t *testing.T) {
	t.Parallel()
	// The target listens on another address than the one probed (the port
	// looked free), and the process that holds the URL's port predates it.
	// checkOwner is asked directly: the stranger here is this test process.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tgt, url := serverTarget(t, "exec $SERVE")
	p, err := Start(context.Background(), url, tgt, StartOptions{Children: supervised(t)})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Stop()
	notMeasured, err := checkOwner("http://"+ln.Addr().String(), p.pgid, p.PID())
	if err == nil || notMeasured != nil || !strings.Contains(err.Error(), "is answered by pid "+itoa(os.Getpid())) || !strings.Contains(err.Error(), "will not measure another process") {
		t.Fatalf("checkOwner with a stranger on the port = %v, %v; want an error naming pid %d", notMeasured, err, os.Getpid())
	}
	// its own port: ours
	if notMeasured, err := checkOwner(url, p.pgid, p.PID()); notMeasured != nil || err != nil {
		t.Fatalf("checkOwner of the target's own port = %v, %v; want ours", notMeasured, err)
	}
}

func TestExternalTargetWithPIDFile(t *testing.T) {
	t.Parallel()
	pidFile := t.TempDir() + "/target.pid"
	os.WriteFile(pidFile, []byte(itoa(os.Getpid())+"\n"), 0o644)
	p, err := Start(context.Background(), okServer(t), config.Target{PIDFile: pidFile}, StartOptions{})
	if err != nil {
		t.Fatalf("Start of an external target: %v", err)
	}
	if p.PID() != os.Getpid() || p.Measurable() != nil {
		t.Fatalf("PID = %d (measurable: %v), want %d from the pid file, measurable: this process serves the URL", p.PID(), p.Measurable(), os.Getpid())
	}
	if err := p.Stop(); err != nil || p.Exited() != nil {
		t.Fatalf("Stop/Exited of an external target = %v/%v, want nil", err, p.Exited())
	}
}

// The process a pid file names is measured as named, even when another
// process (here this test's) holds the port: it may sit behind a proxy.
func TestExternalTargetIsMeasuredAsNamed(t *testing.T) {
	t.Parallel()
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	pidFile := t.TempDir() + "/target.pid"
	os.WriteFile(pidFile, []byte(itoa(sleeper.Process.Pid)), 0o644)
	p, err := Start(context.Background(), okServer(t), config.Target{PIDFile: pidFile}, StartOptions{})
	if err != nil {
		t.Fatalf("Start of an external target: %v", err)
	}
	if p.PID() != sleeper.Process.Pid || p.Measurable() != nil {
		t.Fatalf("PID %d, Measurable %v; want pid %d, measurable", p.PID(), p.Measurable(), sleeper.Process.Pid)
	}
}

// A started command whose server leaves its process group and tree (a
// daemon) answers, but its CPU and memory are not the tree's: they are not
// measured, and Measurable says why.
func TestStartedTargetWhoseServerEscapes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid(1)")
	}
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	tgt, url := serverTarget(t, `( setsid $SERVE & echo $! > "`+pidFile+`" ); exec sleep 60`)
	p, err := Start(context.Background(), url, tgt, StartOptions{Children: supervised(t)})
	if b, rerr := os.ReadFile(pidFile); rerr == nil {
		t.Cleanup(func() { syscall.Kill(atoi(t, strings.TrimSpace(string(b))), syscall.SIGKILL) })
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Stop()
	m := p.Measurable()
	if m == nil || !strings.Contains(m.Error(), "is held by pid ") || !strings.Contains(m.Error(), "outside the process tree tailgate measures (pid "+itoa(p.PID())+")") {
		t.Fatalf("Measurable = %v, want why the escaped server is not measured", m)
	}
}

func TestExternalTargetWithoutPID(t *testing.T) {
	t.Parallel()
	p, err := Start(context.Background(), okServer(t), config.Target{}, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.PID() != 0 || p.Measurable() == nil || !strings.Contains(p.Measurable().Error(), "pid_file") {
		t.Fatalf("PID %d, Measurable %v; want no pid and a hint at pid_file", p.PID(), p.Measurable())
	}
}

func TestReadinessChecksStatus(t *testing.T) {
	t.Parallel()
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

func TestStartRejectsEmptyCommand(t *testing.T) {
	t.Parallel()
	_, err := startOnFreeAddr(t, config.Target{Start: &config.Start{}}, StartOptions{})
	if err == nil || !strings.Contains(err.Error(), "command is empty") {
		t.Fatalf("Start with no command = %v, want a clear error", err)
	}
}

func TestStartWithAMissingProgram(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		for _, prog := range []string{"/no/such/server", "no-such-server-tailgate"} {
			tgt := config.Target{Start: &config.Start{Command: config.Command{Args: []string{prog}}}}
			_, err := startOnFreeAddr(t, tgt, StartOptions{Children: m.children(t)})
			var se *StepError
			if !errors.As(err, &se) || se.Step != StepStart || !strings.Contains(err.Error(), prog) {
				t.Errorf("%s: Start of %s = %v, want a start error naming it", m.name, prog, err)
			}
		}
	}
}

// A missing start.dir is named as the directory, not as the program the
// start could not run (under the supervisor: tailgate's own binary).
func TestStartWithAMissingDir(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	for _, m := range modes {
		tgt := config.Target{Start: &config.Start{Command: config.Command{Args: []string{"sh", "-c", "sleep 10"}}, Dir: missing}}
		_, err := startOnFreeAddr(t, tgt, StartOptions{Children: m.children(t)})
		var se *StepError
		if !errors.As(err, &se) || se.Step != StepStart || !strings.Contains(err.Error(), "working directory "+missing+" does not exist") {
			t.Errorf("%s: Start in a missing dir = %v, want a start error naming the directory", m.name, err)
		}
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

func TestSocketLine(t *testing.T) {
	t.Parallel()
	const rest = " 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0"
	le := binaryLittleEndian()
	cases := []struct {
		local string
		match bool
	}{
		{map[bool]string{true: "0100007F:1F90", false: "7F000001:1F90"}[le], true}, // 127.0.0.1:8080
		{"00000000:1F90", true}, // 0.0.0.0:8080
		{map[bool]string{true: "0500000A:1F90", false: "0A000005:1F90"}[le], false},                                                // 10.0.0.5: not loopback
		{map[bool]string{true: "0100007F:1F91", false: "7F000001:1F91"}[le], false},                                                // another port
		{"00000000000000000000000000000000:1F90", true},                                                                            // [::]:8080
		{map[bool]string{true: "00000000000000000000000001000000:1F90", false: "00000000000000000000000000000001:1F90"}[le], true}, // [::1]:8080
		{map[bool]string{true: "0000000000000000FFFF00000100007F:1F90", false: "00000000000000000000FFFF7F000001:1F90"}[le], true}, // [::ffff:127.0.0.1]
	}
	for _, c := range cases {
		inode, state, match := socketLine("   0: "+c.local+rest, 8080)
		if match != c.match || (match && (inode != 4242 || state != tcpListen)) {
			t.Errorf("socketLine(%s) = %d, %q, %v; want match %v", c.local, inode, state, match, c.match)
		}
	}
	if _, _, match := socketLine("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode", 8080); match {
		t.Error("the header line matched")
	}
}

func binaryLittleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// A port that a connection uses as its local end cannot be listened on
// either: the message says whose connection it is.
func TestStartRefusesAPortInUseByAConnection(t *testing.T) {
	t.Parallel()
	srv := okServer(t)
	local := freeAddr(t)
	laddr, _ := net.ResolveTCPAddr("tcp", local)
	conn, err := (&net.Dialer{LocalAddr: laddr}).Dial("tcp", strings.TrimPrefix(srv, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = checkPortFree("http://" + local)
	if err == nil || !strings.Contains(err.Error(), "is already in use by a connection of pid "+itoa(os.Getpid())+" (") {
		t.Fatalf("checkPortFree of a connection's local port = %v, want it named", err)
	}
}
