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
