package report

import (
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/printable"
)

// TargetLogs are the files holding the output (stdout and stderr) of the
// targets tailgate started for a comparison: the head's in check and
// demo, each side's in A/B. A side whose target tailgate did not start
// has none.
type TargetLogs struct{ Base, Head string }

// Paths lists the log files, the base's first, each once (an A/A job's
// one target serves both sides); none when tailgate started no target. A
// path of white space names no file.
func (l TargetLogs) Paths() []string {
	var out []string
	for _, p := range []string{l.Base, l.Head} {
		if strings.TrimSpace(p) != "" && (len(out) == 0 || out[0] != p) {
			out = append(out, p)
		}
	}
	return out
}

// targetLogNotes are the notes that say where the targets' output is:
// the reports name the files, the job keeps them (the Action's
// target_log output). The paths are shown like any text tailgate did not
// write (a report artifact carries them).
func targetLogNotes(in Input) []string {
	l, paths := in.TargetLog, in.TargetLog.Paths()
	switch {
	case len(paths) == 0:
		return nil
	case len(paths) == 1 && (in.Mode != "ab" || l.Base == l.Head):
		return []string{"The output of the target tailgate started is in " + paths[0]}
	}
	var out []string
	for _, side := range []struct{ name, path string }{{"base", l.Base}, {"head", l.Head}} {
		if slices.Contains(paths, side.path) {
			out = append(out, "The output of the "+side.name+" target is in "+side.path)
		}
	}
	return out
}

// maxPathRunes bounds a target log's path in a report artifact: far above
// any path tailgate writes.
const maxPathRunes = 1000

// targetLogPath checks a target log's path read from a report artifact:
// a plain file path, bounded, on one line of printable characters, and
// not an address.
func (c *checker) targetLogPath(path, s string) {
	c.bounded(path, s, maxPathRunes, true)
	if err := printable.Check(s); err != nil {
		c.add(path, "%v", err)
	}
	if strings.Contains(s, "://") {
		c.add(path, "%q is an address, not a file path", clip(s))
	}
}
