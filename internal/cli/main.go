// Package cli owns the tailgate command line: each subcommand turns its
// flags (or, for `tailgate action`, the Action's inputs) into the options of
// a pipeline use case, runs it, hands the result to its publishers, and maps
// the error's kind to the exit code. It is the only package that touches the
// process (arguments, environment, signals), and the one place where the
// outside systems are wired in (the GitHub client, the git runner).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
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
	// environ is the process environment, which children get without
	// credentials (target.ChildEnv).
	environ []string
	// targetLive, when set, gets a started target's output as it comes
	// (--target-output live).
	targetLive io.Writer
	// mask, set in GitHub Actions, registers a secret with the runner
	// (::add-mask::), which hides it in the job log from then on; nil
	// elsewhere, where the command would print the secret instead.
	mask func(secret string)
}

type command struct {
	summary string
	run     func(ctx context.Context, e env, args []string) error
}

var commands = map[string]command{}

// hidden commands are run like the others but not listed in help.
var hidden = map[string]func(context.Context, env, []string) error{}

func register(name, summary string, run func(context.Context, env, []string) error) {
	commands[name] = command{summary, run}
}

// Main runs tailgate with args (without the program name) and returns the
// process exit code.
//
// The GitHub Actions runner reads workflow commands from both streams, so
// both are guarded first (ci.Guard): nothing tailgate prints (a name from a
// config or a report, a server's answer, a target's output, an error
// quoting any of them) can form a command; only a ci.Runtime issues them.
// They are guarded everywhere, not only where GITHUB_ACTIONS is set: a
// workflow step that runs tailgate's container (docker run IMAGE check …)
// prints to the job log from an environment that does not say so. The
// guard changes nothing but a backslash where a command could begin.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	stdout, stderr = ci.NewGuard(stdout), ci.NewGuard(stderr)
	defer func() {
		// A bug must not exit 2 (Go's exit code for a panic, tailgate's for
		// bad input), nor print its value past the guard. The deferred
		// stops and worktree removals below have run by now; one line
		// says what broke and where.
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
	if h, isHidden := hidden[name]; isHidden {
		cmd, ok = command{run: h}, true
	}
	if !ok {
		fmt.Fprintf(stderr, "tailgate: unknown command %q\n\n", name)
		usage(stderr)
		return ExitUsage
	}
	if _, isHidden := hidden[name]; !isHidden {
		tmp, err := childTempDir(&e)
		if err != nil {
			fmt.Fprintf(stderr, "tailgate %s: %v\n", name, err)
			return ExitRuntime
		}
		defer os.RemoveAll(tmp)
	}
	err := cmd.run(ctx, e, rest)
	if err != nil && err != errHelpShown && !errors.Is(err, errQuiet) {
		fmt.Fprintf(stderr, "tailgate %s: %v\n", name, err)
	}
	if err == errHelpShown {
		return ExitPass
	}
	return exitCode(err)
}

// childTempDir makes the children's own temporary directory and gives it
// to them as TMPDIR: a build, target or dataset command writes its
// temporary files there (removed when tailgate ends), never in the
// runner's RUNNER_TEMP, which holds the job's command files.
func childTempDir(e *env) (string, error) {
	dir, err := os.MkdirTemp("", "tailgate-children-*")
	if err != nil {
		return "", fmt.Errorf("making the children's temporary directory: %w", err)
	}
	e.environ = append(slices.Clip(e.environ), "TMPDIR="+dir)
	return dir, nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, `tailgate: a CI performance-regression gate for HTTP services.

Usage: tailgate <command> [flags]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `  version    print the version

Run 'tailgate <command> -h' for a command's flags.
Exit codes: 0 pass, 1 regression, 2 usage or config error, 3 runtime failure (also Ctrl-C: no result is written).
`)
}
