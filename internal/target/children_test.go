package target

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// parentEnv makes the test binary a tiny tailgate (actAsTailgate): it
// starts the target described by the variable's value ("supervised" or
// "direct", a space, then the shell script) on parentAddrEnv, prints the
// pids of the supervisor and the command, and waits to be killed.
const (
	parentEnv     = "TAILGATE_TARGET_TEST_PARENT"
	parentAddrEnv = "TAILGATE_TARGET_TEST_PARENT_ADDR"
)

func actAsTailgate(spec string) int {
	mode, script, _ := strings.Cut(spec, " ")
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	// the children must not act as tailgate again
	environ := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, parentEnv+"=") })
	ch := Children{Environ: environ}
	if mode == "supervised" {
		ch.Supervisor = []string{exe, supervisorArg}
	}
	addr := os.Getenv(parentAddrEnv)
	tgt := config.Target{
		Start: &config.Start{Command: config.Command{Shell: script}, Env: map[string]string{"SERVE": exe + " -test.run=^$", demoAddrEnv: addr}},
		Ready: &config.Ready{Path: "/health", Timeout: config.Duration(20 * time.Second)},
	}
	p, err := Start(context.Background(), "http://"+addr, tgt, StartOptions{Children: ch})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	fmt.Println("started", p.pgid, p.PID())
	time.Sleep(2 * time.Minute) // until the test kills this process
	return 0
}

// TestChildrenDieWhenTailgateIsKilled kills a tailgate (this test binary
// re-executed) with SIGKILL while its target, a shell that forked a real
// server, runs: the supervisor sees tailgate gone and ends the shell and
// the server.
func TestChildrenDieWhenTailgateIsKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	pids, url := startAndKillTailgate(t, "supervised", `$SERVE & echo $! > "`+pidFile+`"; wait`)
	server := atoi(t, strings.TrimSpace(string(mustReadFile(t, pidFile))))
	all := append(pids, server)
	waitAllGone(t, all, 20*time.Second)
	if _, err := http.Get(url + "/health"); err == nil {
		t.Errorf("the server still answers after tailgate was killed")
	}
}

// Without a supervisor, the parent-death signal still ends the direct
// child (Linux only): here the server itself.
func TestDirectChildDiesWhenTailgateIsKilled(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs Linux")
	}
	pids, _ := startAndKillTailgate(t, "direct", "exec $SERVE")
	waitAllGone(t, pids[1:], 20*time.Second)
}

// startAndKillTailgate starts a tiny tailgate with the target script,
// waits until the target is ready, checks its processes run, and kills
// tailgate with SIGKILL. It returns the pids of the target's group leader
// and command, and the target's URL.
func startAndKillTailgate(t *testing.T, mode, script string) ([]int, string) {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(testExe(t))
	cmd.Env = append(os.Environ(), parentEnv+"="+mode+" "+script, parentAddrEnv+"="+addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var leader, command int
	line, err := bufio.NewReader(out).ReadString('\n')
	if _, serr := fmt.Sscanf(line, "started %d %d", &leader, &command); err != nil || serr != nil {
		t.Fatalf("tiny tailgate said %q (%v, %v)", line, err, serr)
	}
	for _, pid := range []int{leader, command} {
		if !running(pid) {
			t.Fatalf("process %d of the target does not run before the kill", pid)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	return []int{leader, command}, "http://" + addr
}

func waitAllGone(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var left []int
		for _, pid := range pids {
			if running(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v still run %v after tailgate was killed", left, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("reading %s: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// credentials is an environment as a GitHub Actions step has it.
var credentials = []string{
	"GITHUB_TOKEN=ghs_secret1", "INPUT_GITHUB_TOKEN=ghs_secret2", "INPUT_CONFIG=tailgate.yml",
	"ACTIONS_RUNTIME_TOKEN=secret3", "ACTIONS_ID_TOKEN_REQUEST_URL=https://token.example/",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN=secret4", "ACTIONS_CACHE_URL=https://cache.example/",
	"ACTIONS_RUNTIME_URL=https://runtime.example/", "ACTIONS_RESULTS_URL=https://results.example/",
	"GH_TOKEN=secret5", "GITHUB_ENV=/tmp/env", "GITHUB_OUTPUT=/tmp/out",
}

// TestChildrenGetNoCredentials starts a real target, a dataset command and
// a load tool under an environment holding the Actions credentials, and
// reads what each of them saw.
func TestChildrenGetNoCredentials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ch := supervised(t)
	ch.Environ = append(append(os.Environ(), credentials...), "KEEP_ME=yes", "GH_ENTERPRISE_TOKEN=passed-on")
	ch.PassEnv = []string{"GH_ENTERPRISE_TOKEN"}
	tgt, url := serverTarget(t, `env > "`+dir+`/target.env"; exec $SERVE`)
	p, err := Start(context.Background(), url, tgt, StartOptions{Children: ch})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Stop()
	reset := &config.Action{Command: &config.Command{Shell: `env > "` + dir + `/reset.env"`}}
	if err := Reset(context.Background(), nil, url, reset, ch.With(SideEnv+"=head")); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	tool := &config.Command{Args: []string{"sh", "-c", `env > "` + dir + `/tool.env"`}}
	if exit, err := RunTool(context.Background(), tool, ch.With("TAILGATE_RUN=0"), 20*time.Second, nil); err != nil || exit != 0 {
		t.Fatalf("RunTool = %d, %v", exit, err)
	}
	for _, name := range []string{"target", "reset", "tool"} {
		env := string(mustReadFile(t, filepath.Join(dir, name+".env")))
		for _, kv := range credentials {
			if k, _, _ := strings.Cut(kv, "="); strings.Contains(env, "\n"+k+"=") || strings.HasPrefix(env, k+"=") {
				t.Errorf("%s saw %s", name, k)
			}
		}
		for _, want := range []string{"KEEP_ME=yes", "GH_ENTERPRISE_TOKEN=passed-on", "PATH="} {
			if !strings.Contains(env, want) {
				t.Errorf("%s did not see %s", name, want)
			}
		}
	}
	resetEnv := string(mustReadFile(t, filepath.Join(dir, "reset.env")))
	for _, want := range []string{TargetURLEnv + "=" + url + "\n", SideEnv + "=head\n"} {
		if !strings.Contains(resetEnv, want) {
			t.Errorf("the reset command did not see %q", want)
		}
	}
}

func TestChildEnv(t *testing.T) {
	t.Parallel()
	parent := []string{"PATH=/bin", "GITHUB_TOKEN=x", "INPUT_GITHUB_TOKEN=y", "actions_runtime_token=z", "GITHUB_SHA=abc", "NOEQUALS", "=bad", "A=1"}
	got := ChildEnv(parent, []string{"GITHUB_TOKEN"}, []string{"A=2", "B=3"})
	want := []string{"PATH=/bin", "GITHUB_TOKEN=x", "GITHUB_SHA=abc", "A=2", "B=3"}
	if !slices.Equal(got, want) {
		t.Errorf("ChildEnv = %q\nwant %q", got, want)
	}
	if got := ChildEnv(nil, nil, []string{"X=1"}); !slices.Equal(got, []string{"X=1"}) {
		t.Errorf("ChildEnv without a parent = %q, want only the extra variables", got)
	}
	// With copies: two children of one Children do not share their extras
	base := Children{}.With("A=1")
	one, two := base.With("B=1"), base.With("C=1")
	if !slices.Equal(one.Env(), []string{"A=1", "B=1"}) || !slices.Equal(two.Env(), []string{"A=1", "C=1"}) {
		t.Errorf("With shares its slice: %q, %q", one.Env(), two.Env())
	}
}
