// Package cli owns the tailgate command line: each subcommand turns its flags (or, for `tailgate action`, the Action's
// inputs) into the options of a pipeline use case, runs it, hands the result to its publishers, and maps the error's
// kind to the exit code. It is the only package that touches the process (arguments, environment, signals), and the one
// place where the outside systems are wired in (the GitHub client, the git runner).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/tailgate-ci/tailgate/internal/bug"
	"github.com/tailgate-ci/tailgate/internal/ci"
)

// Version is the tailgate version, set at build time with
// -ldflags "-X github.com/tailgate-ci/tailgate/internal/cli.Version=v1.2.3".
var Version = "dev"

// env is what a command may use of the process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	environ        []string  // children get it without credentials (target.ChildEnv)
	targetLive     io.Writer // a started target's output as it comes (--target-output live)
	// mask, set in GitHub Actions only (elsewhere ::add-mask:: would print
	// the secret), hides a secret in the job log from then on.
	mask func(secret string)
}

type command struct {
	summary string // "": hidden, not listed in help, run without a children's TMPDIR
	run     func(ctx context.Context, e env, args []string) error
}

var commands = map[string]command{
	"ab":              {"measure a base and a head build in one job, block after block, until the verdict is clear", cmdAB},
	"action":          {"run as the GitHub Action step (inputs from INPUT_* variables)", cmdAction},
	"baseline":        {"baseline record: run (or take --result) and append the runs to the baseline", cmdBaseline},
	"calibrate":       {"run A/A jobs on one build and store the measured noise in the baseline", cmdCalibrate},
	"check":           {"run the benchmark (or take --result) and judge it against the baseline", cmdCheck},
	"comment":         {"post the sticky PR comment from a report.json (the workflow_run publisher for fork PRs)", cmdComment},
	"compare":         {"judge two sets of result files (tailgate, or any format import reads) without running", cmdCompare},
	"demo":            {"the whole gate on the embedded demo service: its clean build against a slowed one, A/B (--mode check: against a stored baseline)", cmdDemo},
	"history":         {"find the commits where a gated metric of main shifted, and draw the trend page", cmdHistory},
	"import":          {"convert k6, Locust, JMeter, Gatling, vegeta, wrk, ab, hey, oha, bombardier or Artillery results to tailgate result JSON", cmdImport},
	"init":            {"write a commented tailgate.yml for a service: its URL and how to start it", cmdInit},
	"merge":           {"merge the shard results of one sharded run (run --shard I/N) into one", cmdMerge},
	"run":             {"run the benchmark and write the result JSON", cmdRun},
	"validate":        {"check a benchmark file without running it: parse, validate, templates and {{env}} variables", cmdValidate},
	supervisorCommand: {"", cmdSupervise},
	"demo-serve":      {"", cmdDemoServe},
}

// Main runs tailgate with args (without the program name) and returns the process exit code. Both streams are guarded
// first (ci.Guard), everywhere (a container's output reaches a job log unannounced): nothing tailgate prints can form a
// workflow command; only a ci.Runtime issues them.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	stdout, stderr = ci.NewGuard(stdout), ci.NewGuard(stderr)
	defer func() {
		// A bug must not exit 2 (Go's for a panic, tailgate's for bad input); one line says what broke and where.
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "tailgate: internal error (a bug in tailgate; please report it): %v, in %s\n", p, bug.Site())
			code = ExitRuntime
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := env{stdout: stdout, stderr: stderr, getenv: getenv, environ: os.Environ()}
	if getenv("GITHUB_ACTIONS") == "true" {
		e.mask = ci.NewRuntime(stdout, getenv).AddMask
	}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return ExitPass
	case "version", "--version":
		fmt.Fprintln(stdout, "tailgate", Version)
		return ExitPass
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "tailgate: unknown command %q\n\n", name)
		usage(stderr)
		return ExitUsage
	}
	if cmd.summary != "" { // the children's own TMPDIR, never the runner's RUNNER_TEMP (the job's command files)
		tmp, err := os.MkdirTemp("", "tailgate-children-*")
		if err != nil {
			fmt.Fprintf(stderr, "tailgate %s: making the children's temporary directory: %v\n", name, err)
			return ExitRuntime
		}
		defer os.RemoveAll(tmp)
		e.environ = append(slices.Clip(e.environ), "TMPDIR="+tmp)
	}
	err := cmd.run(ctx, e, rest)
	if err == errHelpShown {
		return ExitPass
	}
	if err != nil && !errors.Is(err, errQuiet) {
		fmt.Fprintf(stderr, "tailgate %s: %v\n", name, err)
	}
	return exitCode(err)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `tailgate: a CI performance-regression gate for HTTP services.

Usage: tailgate <command> [flags]

Commands:
`)
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		if s := commands[n].summary; s != "" {
			fmt.Fprintf(w, "  %-10s %s\n", n, s)
		}
	}
	fmt.Fprint(w, `  version    print the version

Run 'tailgate <command> -h' for a command's flags.
Exit codes: 0 pass, 1 regression, 2 usage or config error, 3 runtime failure (also Ctrl-C: no result is written).
`)
}
