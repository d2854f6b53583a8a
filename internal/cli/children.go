package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// supervisorCommand is the hidden subcommand every child runs under (target.Supervise), which ends the child when
// tailgate dies, even by SIGKILL, and outlives the SIGTERM to the group to report its end.
const supervisorCommand = "supervise"

func cmdSupervise(_ context.Context, _ env, args []string) error {
	if code := target.Supervise(args); code != 0 {
		return statusError(code) // the command's own status: nothing to print
	}
	return nil
}

// errQuiet ends a command with its exit code and no message.
var errQuiet = errors.New("exit without a message")

// statusError ends the process with a given status and no message (the supervisor's command's own).
type statusError int

func (s statusError) Error() string { return errQuiet.Error() }
func (s statusError) Unwrap() error { return errQuiet }

// processes is how every command starts its children: under the
// supervisor where it can, without credentials, the target's output logged.
func (e env) processes() pipeline.Processes {
	p := pipeline.Processes{Environ: e.environ, TargetLogDir: targetLogDir(e), TargetLive: e.targetLive, Hidden: runnerDirs(e)}
	if target.CanSupervise {
		p.Supervisor = target.OwnSupervisor(supervisorCommand)
	}
	return p
}

// runnerDirs are the runner's directories no child of a sealed A/B job may
// see: the command files' and RUNNER_TEMP (event payload, targets' logs).
func runnerDirs(e env) []string {
	var dirs []string
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", "RUNNER_TEMP"} {
		v := e.getenv(name)
		if v == "" {
			continue
		}
		if name != "RUNNER_TEMP" {
			v = filepath.Dir(v)
		}
		if abs, err := filepath.Abs(v); err == nil && !slices.Contains(dirs, abs) && abs != "/" {
			dirs = append(dirs, abs)
		}
	}
	return dirs
}

// targetLogDir is where a started target's output goes: $RUNNER_TEMP in
// GitHub Actions (uploadable with the job), else the temp directory.
func targetLogDir(e env) string { return cmp.Or(e.getenv("RUNNER_TEMP"), os.TempDir()) }

// Values of --target-output.
const (
	targetOutputFile = "file"
	targetOutputLive = "live"
)

// targetOutput is --target-output: the target's output goes to its log file, and with "live" also to stderr.
type targetOutput string

func (t *targetOutput) String() string { return string(*t) }

func (t *targetOutput) Set(s string) error {
	if s != targetOutputFile && s != targetOutputLive {
		return fmt.Errorf("want %s or %s, got %q", targetOutputFile, targetOutputLive, s)
	}
	*t = targetOutput(s)
	return nil
}

func (t targetOutput) apply(e env) env {
	if t == targetOutputLive {
		e.targetLive = e.stderr
	}
	return e
}
