package target

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

func TestRunToolPassesEnvAndExitStatus(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out.txt")
	var log bytes.Buffer
	c := &config.Command{Shell: `echo started; echo "$TAILGATE_RUN" > "$OUT"; exit 3`}
	exit, err := RunTool(context.Background(), c, supervised(t).With("TAILGATE_RUN=2", "OUT="+out), 10*time.Second, &log)
	if err != nil || exit != 3 {
		t.Fatalf("RunTool = %d, %v; want exit 3 and no error (a tool may fail thresholds and still write results)", exit, err)
	}
	if b, _ := os.ReadFile(out); strings.TrimSpace(string(b)) != "2" {
		t.Errorf("the command saw TAILGATE_RUN=%q, want 2", b)
	}
	if !strings.Contains(log.String(), "[load] started") {
		t.Errorf("log = %q, want the tool's output prefixed", log.String())
	}
}

func TestRunToolTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := &config.Command{Shell: `sleep 30 & echo $! > "` + pidFile + `"; wait`}
	start := time.Now()
	_, err := RunTool(context.Background(), c, supervised(t), 3*time.Second, &bytes.Buffer{})
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepLoad {
		t.Fatalf("err = %v, want a %q StepError", err, StepLoad)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("RunTool took %v after a 3s timeout", time.Since(start))
	}
	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if !running(atoi(t, pid)) {
			return // the background sleep is gone
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the tool's child %s still runs after the timeout", pid)
}

// A load tool that starts helpers (Locust's workers) and exits leaves
// none of them running: a worker whose master failed to start would retry
// for minutes, orphaned.
func TestRunToolEndsWhatTheCommandLeftRunning(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := &config.Command{Shell: `sleep 30 & echo $! > "` + pidFile + `"; exit 0`}
	if exit, err := RunTool(context.Background(), c, supervised(t), 20*time.Second, &bytes.Buffer{}); err != nil || exit != 0 {
		t.Fatalf("RunTool = %d, %v; want exit 0", exit, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := atoi(t, strings.TrimSpace(string(b)))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !running(pid) {
			return
		}
	}
	t.Errorf("the tool's child %d still runs after the tool exited", pid)
}
