package target

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// threadNanos returns the CPU time, in nanoseconds, that the live threads
// of pid have run, from /proc/<pid>/task/*/schedstat (the scheduler's own
// sum of run time). It is exact where /proc/<pid>/stat's utime and stime
// are not: those are charged by sampling at each clock tick, so a server
// that runs in bursts of a fraction of a tick is over- or under-charged by
// chance, about 5 % over a few seconds. ok is false where schedstat is not
// available (a kernel without CONFIG_SCHED_INFO) or the process is gone.
func threadNanos(pid int) (nanos uint64, ok bool) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // a thread that just exited
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		nanos += n
	}
	return nanos, len(tasks) > 0
}
