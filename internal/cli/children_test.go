package cli_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// asTailgateEnv makes the test binary run cli.Main with its arguments: a
// real tailgate process, for tests that kill it or give it an environment.
const asTailgateEnv = "TAILGATE_CLI_TEST_AS_TAILGATE"

// childConfig is a benchmark whose target is started by tailgate: a shell
// that writes its environment and pid to dir and runs the demo service
// (this test binary) in the background; its dataset reset is a command
// that writes its environment too.
func childConfig(t *testing.T, dir string, duration string) (path, url string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := targettest.FreeAddr(t)
	cfg := `name: children
pass_env: [GH_ENTERPRISE_TOKEN]
target:
  url: http://` + addr + `
  start:
    command: 'env > "` + dir + `/target.env"; echo $$ > "` + dir + `/shell.pid"; "$DEMO" demo-serve --addr ` + addr + ` & echo $! > "` + dir + `/server.pid"; wait'
    env: {DEMO: "` + exe + `"}
  ready: {path: /health, timeout: 20s}
dataset:
  reset:
    command: 'env > "` + dir + `/reset.env"'
load: {model: closed, vus: 1, warmup: 0s, duration: ` + duration + `, runs: 1}
scenarios:
  - steps: [{path: /count}]
`
	path = filepath.Join(dir, "tailgate.yml")
	mustWrite(t, path, cfg)
	return path, "http://" + addr
}

// tailgateProcess starts the test binary as tailgate with the given
// environment added to this process's.
func tailgateProcess(t *testing.T, extraEnv []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), asTailgateEnv+"=1"), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &stdout, &stderr
}

func TestChildrenOfTailgateGetNoCredentials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, _ := childConfig(t, dir, "300ms")
	creds := []string{"GITHUB_TOKEN=ghs_a", "INPUT_GITHUB_TOKEN=ghs_b", "ACTIONS_RUNTIME_TOKEN=c", "ACTIONS_ID_TOKEN_REQUEST_URL=https://id.example/",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=d", "ACTIONS_CACHE_URL=https://cache.example/", "GH_TOKEN=e"}
	extra := append(creds, "GH_ENTERPRISE_TOKEN=passed-on", "RUNNER_TEMP="+dir)
	out := filepath.Join(dir, "result.json")
	cmd, stdout, stderr := tailgateProcess(t, extra, "run", "-q", "-c", cfg, "-o", out, "--target-output", "live")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tailgate run: %v\n%s\n%s", err, stdout, stderr)
	}
	for _, child := range []string{"target", "reset"} {
		env := string(mustRead(t, filepath.Join(dir, child+".env")))
		for _, kv := range creds {
			if k, _, _ := strings.Cut(kv, "="); strings.Contains("\n"+env, "\n"+k+"=") {
				t.Errorf("the %s saw %s", child, k)
			}
		}
		if !strings.Contains(env, "GH_ENTERPRISE_TOKEN=passed-on\n") {
			t.Errorf("the %s did not get the variable pass_env names", child)
		}
		if strings.Contains("\n"+env, "\nRUNNER_TEMP=") {
			t.Errorf("the %s was told the runner's temp directory (which holds the job's command files)", child)
		}
		tmp := envValue(env, "TMPDIR")
		if !strings.Contains(filepath.Base(tmp), "tailgate-children-") {
			t.Errorf("the %s got TMPDIR=%q, want a private directory of tailgate's", child, tmp)
		} else if _, err := os.Stat(tmp); !os.IsNotExist(err) {
			t.Errorf("the children's TMPDIR %s is left after tailgate ended (%v)", tmp, err)
		}
	}
	if !strings.Contains(stderr.String(), "[target] demo service on http://") {
		t.Errorf("--target-output live: stderr has no [target] lines:\n%s", stderr)
	}
	var res struct {
		TargetLog string `json:"target_log"`
	}
	if err := json.Unmarshal(mustRead(t, out), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.TargetLog, dir+"/tailgate-children-target-") {
		t.Fatalf("target_log = %q, want a file in $RUNNER_TEMP (%s)", res.TargetLog, dir)
	}
	if log := string(mustRead(t, res.TargetLog)); !strings.Contains(log, "demo service on http://") || strings.Contains(log, "[target]") {
		t.Errorf("target log %s = %q, want the service's own output", res.TargetLog, log)
	}
}

// envValue is the value of name in the output of env(1).
func envValue(env, name string) string {
	for _, line := range strings.Split(env, "\n") {
		if v, ok := strings.CutPrefix(line, name+"="); ok {
			return v
		}
	}
	return ""
}

func TestTargetOutputGoesToAFileByDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, _ := childConfig(t, dir, "300ms")
	cmd, stdout, stderr := tailgateProcess(t, []string{"RUNNER_TEMP=" + dir}, "run", "-c", cfg, "-o", filepath.Join(dir, "r.json"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tailgate run: %v\n%s\n%s", err, stdout, stderr)
	}
	if strings.Contains(stderr.String(), "[target]") || strings.Contains(stderr.String(), "demo service on") {
		t.Errorf("the target's output reached stderr without --target-output live:\n%s", stderr)
	}
	o := tailgate(t, "run", "-c", cfg, "--target-output", "loud")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, `invalid value "loud" for flag -target-output: want file or live`)
}

// TestStoppedTailgateLeavesNoTarget stops tailgate in the middle of a run:
// with Ctrl-C or SIGTERM it stops the target itself and exits 3; killed
// with SIGKILL, as a CI runner does after its grace period, it can do
// nothing, and the supervisor ends the target's shell and the server it
// forked. Either way they end within a bounded time.
func TestStoppedTailgateLeavesNoTarget(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs Linux /proc to find the processes")
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			stopTailgateMidRun(t, sig)
		})
	}
}

func stopTailgateMidRun(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	cfg, url := childConfig(t, dir, "60s")
	cmd, stdout, stderr := tailgateProcess(t, []string{"RUNNER_TEMP=" + dir}, "run", "-q", "-c", cfg, "-o", filepath.Join(dir, "r.json"))
	// wait until the benchmark runs: the reset command has run
	deadline := time.Now().Add(30 * time.Second)
	for _, err := os.Stat(filepath.Join(dir, "reset.env")); err != nil; _, err = os.Stat(filepath.Join(dir, "reset.env")) {
		if time.Now().After(deadline) {
			t.Fatalf("the benchmark did not start within 30s\n%s\n%s", stdout, stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	shell, server := pidIn(t, dir+"/shell.pid"), pidIn(t, dir+"/server.pid")
	supervisor := parentOf(t, shell)
	if parentOf(t, supervisor) != cmd.Process.Pid {
		t.Fatalf("the target's shell %d is not under a supervisor started by tailgate %d", shell, cmd.Process.Pid)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if sig != syscall.SIGKILL {
		if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(stderr.String(), "interrupted: no result was written") {
			t.Errorf("tailgate after %v: exit %d (%v), stderr %q; want 3, interrupted", sig, code, err, stderr)
		}
	}
	deadline = time.Now().Add(20 * time.Second)
	for _, pid := range []int{supervisor, shell, server} {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the target still runs 20s after tailgate got %v", pid, sig)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := http.Get(url + "/health"); err == nil {
		t.Errorf("the target still answers after tailgate got %v", sig)
	}
	wantNoFile(t, filepath.Join(dir, "r.json"))
}

func pidIn(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(mustRead(t, path))))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// procStat returns the state and parent pid of a process, from /proc.
func procStat(pid int) (state string, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid, true
}

func parentOf(t *testing.T, pid int) int {
	t.Helper()
	_, ppid, ok := procStat(pid)
	if !ok {
		t.Fatalf("process %d does not run", pid)
	}
	return ppid
}

// alive: in the process table and not a zombie.
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}
