package report

import (
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/printable"
)

// TargetLogs are the files holding the output of the targets tailgate
// started (the head's in check and demo, each side's in A/B).
type TargetLogs struct{ Base, Head string }

// Paths lists the log files, each once, the base's first.
func (l TargetLogs) Paths() []string {
	var out []string
	for _, p := range []string{l.Base, l.Head} {
		if strings.TrimSpace(p) != "" && (len(out) == 0 || out[0] != p) {
			out = append(out, p)
		}
	}
	return out
}

// targetLogNotes say where the targets' output is; the paths are
// untrusted text (a report artifact carries them).
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

// maxPathRunes bounds a target log's path in a report artifact: far above any path tailgate writes.
const maxPathRunes = 1000

// targetLogPath checks a target log's path from a report artifact.
func (c *checker) targetLogPath(path, s string) {
	c.bounded(path, s, maxPathRunes, true)
	if err := printable.Check(s); err != nil {
		c.add(path, "%v", err)
	}
	if strings.Contains(s, "://") {
		c.add(path, "%q is an address, not a file path", clip(s))
	}
}
