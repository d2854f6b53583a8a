package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/cli"
)

func TestHelpPrintsUsageOnStdout(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"help", "-h", "--help"} {
		o := tailgate(t, arg)
		wantCode(t, o, 0)
		if o.stderr != "" {
			t.Errorf("%s: stderr is not empty: %q", arg, o.stderr)
		}
		golden(t, "help.txt", o.stdout, "")
	}
}

func TestHelpListsEveryCommandButNotHiddenOnes(t *testing.T) {
	t.Parallel()
	o := tailgate(t, "help")
	for _, name := range []string{"action", "baseline", "calibrate", "check", "compare", "demo", "import", "merge", "run", "version"} {
		if !strings.Contains(o.stdout, "\n  "+name+" ") {
			t.Errorf("help does not list %q:\n%s", name, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "demo-serve") {
		t.Errorf("help lists the hidden demo-serve command:\n%s", o.stdout)
	}
}

func TestNoArgumentsIsUsageError(t *testing.T) {
	t.Parallel()
	o := tailgate(t)
	wantCode(t, o, 2)
	if o.stdout != "" {
		t.Errorf("stdout is not empty: %q", o.stdout)
	}
	wantContains(t, "stderr", o.stderr, "Usage: tailgate <command>", "Commands:")
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	t.Parallel()
	o := tailgate(t, "frobnicate", "-x")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, `unknown command "frobnicate"`, "Usage: tailgate <command>")
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"version", "--version"} {
		o := tailgate(t, arg)
		wantCode(t, o, 0)
		if want := "tailgate " + cli.Version + "\n"; o.stdout != want {
			t.Errorf("%s printed %q, want %q", arg, o.stdout, want)
		}
	}
}

// Every command's -h exits 0 and lists its flags; the usage goes to stderr
// (the flag package's output) and nothing else happens.
func TestCommandHelpExitsZero(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"run":       {"run", "-h"},
		"check":     {"check", "-h"},
		"compare":   {"compare", "-h"},
		"baseline":  {"baseline", "record", "-h"},
		"calibrate": {"calibrate", "-h"},
		"import":    {"import", "-h"},
		"demo":      {"demo", "-h"},
		"ab":        {"ab", "-h"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			o := tailgate(t, args...)
			wantCode(t, o, 0)
			wantContains(t, "stderr", o.stderr, "Usage: tailgate "+name, "Flags:")
			if strings.Contains(o.stderr, "help shown") {
				t.Errorf("the internal help sentinel leaked to the user:\n%s", o.stderr)
			}
		})
	}
}

func TestCommandUsageGolden(t *testing.T) {
	t.Parallel()
	o := tailgate(t, "check", "-h")
	wantCode(t, o, 0)
	golden(t, "check-h.txt", o.stderr, "")
}

func TestBadFlagIsUsageError(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"run":       {"run", "--no-such-flag"},
		"check":     {"check", "--runs", "many"},
		"compare":   {"compare", "--bogus", "a", "--", "b"},
		"baseline":  {"baseline", "record", "--nope"},
		"calibrate": {"calibrate", "--jobs", "x"},
		"import":    {"import", "--zzz"},
		"demo":      {"demo", "--duration", "forever"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			o := tailgate(t, args...)
			wantCode(t, o, 2)
			wantContains(t, "stderr", o.stderr, "tailgate "+name)
		})
	}
}

func TestBaselineWithoutRecordIsUsageError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"baseline"}, {"baseline", "show"}} {
		o := tailgate(t, args...)
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, "baseline record")
	}
}

func TestMissingConfigIsUsageError(t *testing.T) {
	t.Parallel()
	missing := t.TempDir() + "/nope.yml"
	o := tailgate(t, "run", "-c", missing, "-o", t.TempDir()+"/r.json")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, missing)
}

// -h of the commands whose first argument is not a flag (baseline takes
// the sub-command record, action takes no arguments) also shows help.
func TestGroupCommandHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"baseline", "-h"}, {"action", "-h"}} {
		t.Run(args[0], func(t *testing.T) {
			o := tailgate(t, args...)
			wantCode(t, o, 0)
			wantContains(t, "stdout and stderr", o.stdout+o.stderr, "Usage: tailgate "+args[0])
		})
	}
}

// A flag's help shows a default a user can type, never the internal
// "unset" sentinel.
func TestCommandHelpShowsNoSentinelDefault(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"run", "-h"}, {"check", "-h"}, {"calibrate", "-h"}, {"demo", "-h"}, {"baseline", "record", "-h"}} {
		o := tailgate(t, args...)
		for _, line := range strings.Split(o.stderr, "\n") {
			if strings.Contains(line, "-1ns") {
				t.Errorf("%s shows the sentinel default -1ns: %q", strings.Join(args, " "), strings.TrimSpace(line))
			}
		}
	}
}

// A value no benchmark can have is refused, never replaced by the
// default: `--runs 0` used to run the default 5.
func TestNonsenseValuesAreUsageErrors(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "never-read.yml")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "-c", cfg, "--runs", "0"}, `invalid value "0" for flag -runs: must be at least 1, got 0`},
		{[]string{"check", "-c", cfg, "--runs", "-3"}, "must be at least 1, got -3"},
		{[]string{"baseline", "record", "-c", cfg, "--duration", "0s"}, `invalid value "0s" for flag -duration: must be longer than 0`},
		{[]string{"calibrate", "-c", cfg, "--runs", "0"}, "must be at least 1"},
		{[]string{"calibrate", "-c", cfg, "--pause", "-1s"}, "--pause must not be negative"},
		{[]string{"ab", "-c", cfg, "--runs", "0"}, "must be at least 1"},
		{[]string{"demo", "--runs", "0"}, "must be at least 1"},
		{[]string{"demo", "--calibrate", "0"}, `invalid value "0" for flag -calibrate`},
		{[]string{"demo", "--duration", "-2s"}, "must be longer than 0"},
		{[]string{"run", "-c", cfg, "--warmup", "-1s"}, "--warmup must not be negative"},
	}
	for _, tc := range cases {
		o := tailgate(t, tc.args...)
		if o.code != 2 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), o.code, o.stderr, tc.want)
		}
	}
}

// ab refuses --runs (it adds pairs until the verdict is clear), so its help
// must not offer it as "number of runs": it says what to use instead.
func TestABHelpDoesNotOfferRuns(t *testing.T) {
	t.Parallel()
	o := tailgate(t, "ab", "-h")
	wantCode(t, o, 0)
	if strings.Contains(o.stderr, "overrides load.runs") {
		t.Errorf("ab -h offers --runs as an override of load.runs, which ab refuses:\n%s", o.stderr)
	}
	wantContains(t, "stderr", o.stderr, "-max-blocks")
}
