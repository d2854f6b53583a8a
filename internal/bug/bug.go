// Package bug owns how tailgate reports its own bugs: a panic is named in one
// line by the place it came from, never as a Go trace that hides the error
// a user can act on.
package bug

import (
	"fmt"
	"runtime"
	"strings"
)

// Site names the function and line a panic came from, for a one-line
// report; called in a deferred function that recovered it. It is the
// first frame below the runtime's panic machinery.
func Site() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	panicked := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicked = true
		case panicked && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s at %s:%d", f.Function, trimPath(f.File), f.Line)
		}
		if !more {
			return "an unknown place"
		}
	}
}

// trimPath keeps a source file's path from the module's root on.
func trimPath(file string) string {
	if i := strings.Index(file, "/internal/"); i >= 0 {
		return file[i+1:]
	}
	return file
}
