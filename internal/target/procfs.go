package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// procRoot is where the process table is read from (Linux procfs).
const procRoot = "/proc"

// clockTicks is USER_HZ: 100 on every Linux architecture Go supports
// (reading it needs sysconf(3), so cgo).
const clockTicks = 100

// procStat is what tailgate reads of /proc/<pid>/stat (see proc(5)).
type procStat struct {
	PID, PPID, PGRP                  int
	State                            byte
	CPUTicks                         uint64 // utime+stime+cutime+cstime
	ChildTicks                       uint64 // cutime+cstime: of children it reaped
	StartTime                        uint64 // ticks after boot; with PID it names a process uniquely
	RSSPages                         int64
	Comm                             string
	UTime, STime, CUTime, CSTime     uint64
	MinFlt, CMinFlt, MajFlt, CMajFlt uint64
}

func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(pid, string(data))
}

// parseStat parses a stat line, counting fields from the last ')': the
// command name may hold spaces and parentheses.
func parseStat(pid int, line string) (procStat, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command name in %q", pid, line)
	}
	// fields[0] is field 3 of proc(5) (state)
	fields := strings.Fields(line[end+1:])
	if len(fields) < 22 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields after the name, want ≥ 22", pid, len(fields))
	}
	num := func(field int) uint64 {
		v, _ := strconv.ParseUint(fields[field-3], 10, 64)
		return v
	}
	st := procStat{
		PID: pid, State: fields[0][0], PPID: int(num(4)), PGRP: int(num(5)),
		CPUTicks:   num(14) + num(15) + num(16) + num(17),
		ChildTicks: num(16) + num(17),
		StartTime:  num(22),
		UTime:      num(14), STime: num(15), CUTime: num(16), CSTime: num(17),
		MinFlt: num(10), CMinFlt: num(11), MajFlt: num(12), CMajFlt: num(13),
		RSSPages: int64(num(24)),
	}
	if open := strings.IndexByte(line, '('); open >= 0 && open < end {
		st.Comm = line[open+1 : end]
	}
	return st, nil
}

// gone: a zombie or dead entry has ended, reaped or not.
func (s procStat) gone() bool { return s.State == 'Z' || s.State == 'X' }

var (
	scanMu  sync.Mutex // guards the latest scan
	scanAt  time.Time
	scanned []procStat
	statOf  = readStat // a test counts the reads
)

// allStats reads every process in /proc (skipping those that end
// meanwhile). For trees alone (roots, none 0), a scan less than a second
// old spares reading again what was in it outside them (4–16 ms a scan
// under load): such a process joins a tree only by its pid being reused.
func allStats(roots ...int) ([]procStat, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w (CPU and memory sampling needs Linux /proc)", err)
	}
	scanMu.Lock()
	defer scanMu.Unlock()
	known := map[int]procStat{}
	if len(roots) > 0 && !slices.Contains(roots, 0) && time.Since(scanAt) < time.Second {
		for _, st := range scanned {
			known[st.PID] = st
		}
		for _, root := range roots {
			for _, st := range tree(scanned, root) {
				delete(known, st.PID)
			}
		}
	}
	out := make([]procStat, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if st, ok := known[pid]; ok {
				out = append(out, st)
			} else if st, err := statOf(pid); err == nil {
				out = append(out, st)
			}
		}
	}
	if len(known) == 0 { // a whole read: what a later scan reuses is never older than a second
		scanAt = time.Now()
	}
	scanned = out
	return out, nil
}

func tree(all []procStat, root int) []procStat {
	children := map[int][]int{}
	byPID := map[int]procStat{}
	for _, st := range all {
		children[st.PPID] = append(children[st.PPID], st.PID)
		byPID[st.PID] = st
	}
	if _, ok := byPID[root]; !ok {
		return nil
	}
	out, seen := []procStat{byPID[root]}, map[int]bool{root: true} // breadth first
	for i := 0; i < len(out); i++ {
		for _, pid := range children[out[i].PID] {
			if !seen[pid] {
				seen[pid] = true
				out = append(out, byPID[pid])
			}
		}
	}
	return out
}

func PIDFromFile(path string) (int, error) {
	pid, err := pidFromFirstLine(path, "target pid file")
	if err == nil {
		if _, serr := os.Stat(filepath.Join(procRoot, strconv.Itoa(pid))); errors.Is(serr, os.ErrNotExist) {
			return 0, fmt.Errorf("target pid file %s names process %d, which is not running", path, pid)
		}
	}
	return pid, err
}

// pidFromFirstLine reads a pid from a file's first line: a plain pid file
// or PostgreSQL's postmaster.pid (pid, data directory, …).
func pidFromFirstLine(path, what string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading the %s: %w", what, err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSpace(line)
	pid, err := strconv.Atoi(line)
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s %s holds %q, want a process id", what, path, snippet([]byte(line)))
	}
	return pid, nil
}

// processNanos returns the CPU time, in nanoseconds, that pid's threads
// have run, ended threads included: the process's CPU-time clock
// (clock_gettime of CPUCLOCK_SCHED for pid), which Linux lets any process
// read. It is the scheduler's own sum, exact where /proc/<pid>/stat's
// utime and stime are not: those are charged by sampling at each clock
// tick, so a server that runs in bursts of a fraction of a tick is over-
// or under-charged by chance, about 5 % over a few seconds. Summing the
// live threads' /proc/<pid>/task/*/schedstat instead misses every thread
// that ended between two reads: a server that answers each connection in
// a thread of its own (Python's ThreadingHTTPServer, Radicale) read a
// tenth of its CPU that way (17 of 163 ms a lifecycle). ok is false where
// the clock cannot be read (the process is gone).
func processNanos(pid int) (nanos uint64, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^pid<<3|cpuClockSched), &ts); err != nil {
		return 0, false
	}
	return uint64(ts.Nano()), true
}

// cpuClockSched is CPUCLOCK_SCHED of the kernel's process CPU-time clock
// ids, (^pid << 3) | clock: the scheduler's run time.
const cpuClockSched = 2

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
