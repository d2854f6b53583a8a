package cli

import (
	"errors"
	"flag"
	"io"
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
	if errors.Is(err, flag.ErrHelp) {
		return errHelpShown
	}
	if err != nil {
		return usageErr("%v", err)
	}
	return nil
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments (`compare A -- B --report r.json`), and returns
// the positional arguments in order. A "--" is kept as a positional
// argument: compare uses it to separate its two sets.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumedDashDash(args, rest) {
			pos = append(pos, "--")
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// consumedDashDash reports whether the flag parser ate a "--" that ended
// the flags: it is then missing from rest.
func consumedDashDash(args, rest []string) bool {
	i := len(args) - len(rest) - 1
	return i >= 0 && args[i] == "--"
}
