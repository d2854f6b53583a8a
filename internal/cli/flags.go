package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// errHelpShown ends a command after -h printed its usage.
var errHelpShown = errors.New("help shown")

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, usageLine string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fs.Output().Write([]byte("Usage: tailgate " + usageLine + "\n\nFlags:\n"))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and maps -h and flag errors to the right exit.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return errHelpShown
	}
	for name, hint := range removedFlags {
		if fs.Lookup("max-blocks") != nil && strings.HasSuffix(err.Error(), "defined: -"+name) { // the commands that had them
			return usageErr("--%s was removed after a release of warnings: %s", name, hint)
		}
	}
	return usageErr("%v", err)
}

// removedFlags are flags retired after a release of warnings, with what replaced them (CHANGELOG.md).
var removedFlags = map[string]string{
	"max-pairs": "use --max-blocks",
	"design":    "every A/B job follows one rule (docs/config.md#ab); leave it out",
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// parseInterspersed parses flags among the positional arguments (`compare
// A -- B --report r.json`) and returns those in order, a "--" among them.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if i := len(args) - len(rest) - 1; i >= 0 && args[i] == "--" { // the parser ate a "--" that ended the flags
			pos = append(pos, "--")
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// countFlag is an int flag for a number of things (runs, jobs): given, at
// least 1 (`--runs 0` is never the default in disguise).
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*cmp.Or(c, new(countFlag)))) }

func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("expected a whole number")
	}
	if n < 1 {
		return fmt.Errorf("must be at least 1, got %d", n)
	}
	*c = countFlag(n)
	return nil
}

// positiveDuration is a duration flag that, given, must be longer than 0.
type positiveDuration time.Duration

func (d *positiveDuration) String() string {
	if d == nil || *d == 0 {
		return ""
	}
	return time.Duration(*d).String()
}

func (d *positiveDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("expected a duration such as 10s, 500ms or 2m")
	}
	if v <= 0 {
		return fmt.Errorf("must be longer than 0, got %s", s)
	}
	*d = positiveDuration(v)
	return nil
}
