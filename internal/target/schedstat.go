package target

import (
	"errors"
	"fmt"
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
	nanos, tasks, err := sumTasks(pid, "schedstat", func(data string) (uint64, error) {
		f := strings.Fields(data)
		if len(f) == 0 {
			return 0, errors.New("empty")
		}
		return strconv.ParseUint(f[0], 10, 64)
	})
	return nanos, err == nil && tasks > 0
}

// readVoluntaryCtxt sums the voluntary context switches of a process's
// live threads (/proc/<pid>/status holds only its main thread's).
func readVoluntaryCtxt(pid int) (uint64, error) {
	n, _, err := sumTasks(pid, "status", func(data string) (uint64, error) {
		v, ok := parseNumbers(data)["voluntary_ctxt_switches"]
		if !ok {
			return 0, errors.New("no voluntary_ctxt_switches")
		}
		return v, nil
	})
	return n, err
}

// sumTasks sums value over the file of each of pid's live threads; a
// thread that ends meanwhile is skipped.
func sumTasks(pid int, file string, value func(string) (uint64, error)) (sum uint64, tasks int, err error) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "task")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, t := range entries {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), file))
		if err != nil {
			continue
		}
		v, err := value(string(data))
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/task/%s/%s: %w", pid, t.Name(), file, err)
		}
		sum += v
	}
	return sum, len(entries), nil
}
