package cli_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// TestDemoRecordsThenChecks runs the real demo end to end: the demo service
// is this test binary re-executed as demo-serve (see TestMain).
func TestDemoRecordsThenChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo service twice")
	}
	dir := t.TempDir()
	bl := filepath.Join(dir, "demo.json")
	args := []string{"demo", "--mode", "check", "--runs", "2", "--duration", "500ms", "--warmup", "0s", "--baseline", bl}

	// Watch the processes while the first demo runs: the leak check below
	// only means something if it can see the service while it is up.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stop, seen := make(chan struct{}), make(chan bool)
	go func() {
		saw := false
		for !saw {
			select {
			case <-stop:
				seen <- saw
				return
			case <-time.After(20 * time.Millisecond):
				saw = len(demoServeProcesses(exe)) > 0
			}
		}
		<-stop
		seen <- saw
	}()
	first := tailgate(t, args...)
	close(stop)
	if !<-seen {
		t.Errorf("demo-serve was never seen running during the demo: the leak check cannot work")
	}
	wantCode(t, first, 0)
	wantContains(t, "stdout", first.stdout, "recorded a baseline for this machine: "+bl)
	f := readBaselineFile(t, bl)
	if len(f.Samples) != 2 || f.Benchmark != "demo" {
		t.Fatalf("the demo recorded %d samples of %q, want 2 of demo", len(f.Samples), f.Benchmark)
	}
	wantNoDemoServe(t)

	second := tailgate(t, args...)
	if second.code != 0 && second.code != 1 {
		t.Fatalf("the check exited %d, want 0 (pass, inconclusive) or 1 (regression on a noisy machine)\n%s", second.code, second)
	}
	if !regexp.MustCompile(`(?m)^tailgate: demo: (PASS|REGRESSION|INCONCLUSIVE)$`).MatchString(second.stdout) {
		t.Errorf("the check printed no verdict line:\n%s", second.stdout)
	}
	if strings.Contains(second.stdout, "recorded a baseline") {
		t.Errorf("the second demo recorded again instead of checking:\n%s", second.stdout)
	}
	wantNoDemoServe(t)
	if got := readBaselineFile(t, bl); len(got.Samples) != 2 {
		t.Errorf("the check changed the baseline: %d samples, want 2", len(got.Samples))
	}
}

// TestDemoDefaultsToAB runs the default demo, A/B in blocks: the
// clean service against one that does twice the work, both started afresh
// for every block and loaded at the same time; it stops as soon as the
// regression is clear.
func TestDemoDefaultsToAB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo service for every run")
	}
	// Windows of 2 s and a slowdown of 100 % (CPU per lifecycle +100 %,
	// 10× the demo's min_effect): at load average 20 on 2 cores, 1 s
	// windows of a 200 % slower service completed no lifecycle in half
	// the pairs, which then had no CPU per lifecycle to compare.
	o := tailgate(t, "demo", "--slowdown", "100%", "--duration", "2s", "--warmup", "200ms", "--max-blocks", "8", "-q",
		"--baseline", filepath.Join(t.TempDir(), "demo.json"))
	wantCode(t, o, 1)
	wantContains(t, "stdout", o.stdout, "tailgate: demo: REGRESSION", "blocks of at most 8", "both sides loaded at the same time", "each side was started afresh for every block")
	m := regexp.MustCompile(`A/B stopped after (\d+) blocks`).FindStringSubmatch(o.stderr)
	if m == nil {
		t.Fatalf("no stop line:\n%s", o)
	}
	if n, _ := strconv.Atoi(m[1]); n < 3 || n >= 8 {
		t.Errorf("stopped after %d blocks: want the first look (3) or soon after, before the budget of 8", n)
	}
	wantNoDemoServe(t)
}

// Not parallel, as no test that calls wantNoDemoServe is.
func TestDemoBadFlagsAreUsageErrors(t *testing.T) {
	bl := filepath.Join(t.TempDir(), "demo.json")
	for name, args := range map[string][]string{
		"slowdown":   {"demo", "--slowdown", "lots", "--baseline", bl},
		"rate":       {"demo", "--rate", "0", "--baseline", bl},
		"mode":       {"demo", "--mode", "sideways", "--baseline", bl},
		"runs":       {"demo", "--runs", "3", "--baseline", bl},       // A/B adds blocks: --max-blocks
		"aa":         {"demo", "--aa", "--record", "--baseline", bl},  // A/A is A/B; --record is the stored baseline's
		"max-blocks": {"demo", "--max-blocks", "2", "--baseline", bl}, // below the first look
	} {
		t.Run(name, func(t *testing.T) {
			o := tailgate(t, args...)
			wantCode(t, o, 2)
			wantContains(t, "stderr", o.stderr, "--"+name)
			wantNoDemoServe(t)
			wantNoFile(t, bl)
		})
	}
	o := tailgate(t, "demo", "--max-blocks", "2", "--baseline", bl)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "--max-blocks 2 is below ab.min_blocks")
	wantNoFile(t, bl)
}

func TestDemoCorruptBaselineIsLeftAlone(t *testing.T) {
	bl := filepath.Join(t.TempDir(), "demo.json")
	mustWrite(t, bl, "[1, 2")
	o := tailgate(t, "demo", "--mode", "check", "--runs", "2", "--duration", "300ms", "--warmup", "0s", "--baseline", bl)
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, bl)
	if got := string(mustRead(t, bl)); got != "[1, 2" {
		t.Errorf("the corrupt baseline was rewritten: %q", got)
	}
	wantNoDemoServe(t)
}

// wantNoDemoServe fails when a demo-serve child of this test binary is
// still running. Only tests that are not parallel call it: they run before
// every parallel one, many of which start demo services. The demo stops
// its service before it returns; the wait only absorbs the kernel's
// reaping, not a service left behind.
func wantNoDemoServe(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var left []string
	for {
		left = demoServeProcesses(exe)
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("demo-serve is still running after the demo returned: %v", left)
	}
}

// demoServeProcesses lists the descendants of this test process (the demo
// service runs under tailgate's supervisor, a child of this process) whose
// command line is exe demo-serve …, as "pid: cmdline". Only descendants
// count, so that another run of the same test binary cannot be mistaken for
// a leak.
func demoServeProcesses(exe string) []string {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, path := range cmdlines {
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			continue // gone, or a zombie
		}
		argv := bytes.Split(bytes.TrimRight(data, "\x00"), []byte{0})
		if len(argv) < 2 || string(argv[0]) != exe || string(argv[1]) != "demo-serve" {
			continue
		}
		pidDir := filepath.Dir(path)
		if !descendsFromThisProcess(filepath.Base(pidDir)) {
			continue
		}
		found = append(found, filepath.Base(pidDir)+": "+strings.Join(strings.Split(string(data), "\x00"), " "))
	}
	return found
}

// descendsFromThisProcess reports whether this test process is among the
// first few ancestors of pid.
func descendsFromThisProcess(pid string) bool {
	for i := 0; i < 4; i++ {
		ppid := parentPID(filepath.Join("/proc", pid, "stat"))
		if ppid == os.Getpid() {
			return true
		}
		if ppid <= 1 {
			return false
		}
		pid = strconv.Itoa(ppid)
	}
	return false
}

// parentPID reads the parent pid from /proc/PID/stat ("pid (comm) state
// ppid …"; comm may hold spaces and parentheses), or -1.
func parentPID(statPath string) int {
	data, err := os.ReadFile(statPath)
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return -1
	}
	return ppid
}

// The leak check above must be able to see a demo-serve child: start one
// (this binary as demo-serve, as the demo does), find it, stop it.
func TestDemoServeProcessesSeesARunningService(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "demo-serve", "--addr", "127.0.0.1:0")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	// The first line says the service is up (and its signal handling is).
	stderr, err := bufio.NewReader(pipe).ReadString('\n')
	if err != nil || !strings.Contains(stderr, "demo service on") {
		t.Fatalf("demo-serve did not announce itself: %q, %v", stderr, err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	found := false
	for deadline := time.Now().Add(5 * time.Second); !found && time.Now().Before(deadline); {
		for _, p := range demoServeProcesses(exe) {
			found = found || strings.HasPrefix(p, pid+": ")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !found {
		t.Fatalf("demoServeProcesses does not list the running demo-serve (pid %s); stderr: %s", pid, stderr)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("demo-serve did not end cleanly on SIGTERM: %v; stderr: %s", err, stderr)
	}
	for _, p := range demoServeProcesses(exe) {
		if strings.HasPrefix(p, pid+": ") {
			t.Errorf("demoServeProcesses still lists the stopped demo-serve: %s", p)
		}
	}
}

// `demo -o F` writes F also when the run records the baseline, and each
// benchmark definition keeps a baseline of its own: another --duration
// records beside the first instead of replacing it, and a file of another
// definition named with --baseline is replaced with a plain why.
func TestDemoWritesItsResultAndKeepsABaselinePerDefinition(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo service three times")
	}
	t.Parallel()
	dir := t.TempDir()
	env := environ{"XDG_CACHE_HOME": dir}
	demo := func(duration string, extra ...string) (outcome, string) {
		out := filepath.Join(t.TempDir(), "result.json")
		args := append([]string{"demo", "--mode", "check", "-q", "--runs", "2", "--duration", duration, "--warmup", "0s", "-o", out}, extra...)
		o := tailgateEnv(t, env, args...)
		wantCode(t, o, 0)
		if f, err := result.ReadFile(out); err != nil || len(f.Runs) != 2 {
			t.Errorf("demo %s: -o wrote no result of 2 runs (%v)\n%s", duration, err, o)
		}
		return o, out
	}
	baselines := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "tailgate", "demo-baseline-*.json"))
		return m
	}
	o, _ := demo("300ms")
	wantContains(t, "stderr", o.stderr, "no demo baseline for this machine and benchmark yet")
	wantContains(t, "stdout", o.stdout, "recorded a baseline for this machine")
	first := baselines()
	if len(first) != 1 {
		t.Fatalf("baselines %v, want one", first)
	}
	o, _ = demo("400ms")
	wantContains(t, "stdout", o.stdout, "recorded a baseline for this machine")
	if got := baselines(); len(got) != 2 {
		t.Errorf("baselines %v, want the first kept and a second for --duration 400ms", got)
	}
	o, _ = demo("500ms", "--baseline", first[0])
	wantContains(t, "stderr", o.stderr, "the demo baseline "+first[0]+" was recorded for another benchmark definition",
		"a baseline only compares runs of one definition, so a new one replaces it")
}

// In A/B, -o gets the head side's runs; --calibrate writes no result and
// says so instead of ignoring -o.
func TestDemoABWritesTheHeadRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two demo services")
	}
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "head.json")
	o := tailgate(t, "demo", "-q", "--ab", "--max-blocks", "3", "--duration", "300ms", "--warmup", "0s", "-o", out, "--baseline", filepath.Join(dir, "bl.json"))
	if o.code != 0 && o.code != 1 {
		t.Fatalf("demo --ab exited %d\n%s", o.code, o)
	}
	if f, err := result.ReadFile(out); err != nil || len(f.Runs) != 3 {
		t.Errorf("-o with --ab: %v, want the head side's runs of its 3 blocks (first look and budget)", err)
	}
	o = tailgate(t, "demo", "--calibrate", "2", "-o", out, "--baseline", filepath.Join(dir, "bl.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "--calibrate stores noise in the baseline and writes no result: leave out -o")
}
