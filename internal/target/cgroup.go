package target

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// cgroupWindow is a cgroup v2 directory over a window: cpu.stat (which
// keeps ended processes' time), memory.current (for the peak) and io.stat.
// A file it lacks (a controller not enabled) leaves its figures to the
// /proc sums of its processes, with a note.
type cgroupWindow struct {
	dir               string
	firstCPU, lastCPU map[string]uint64
	cpuErr            error
	firstIO, lastIO   map[string]uint64
	ioErr             error
	peakMem           uint64
	memErr            error
}

func openCgroup(dir string) (*cgroupWindow, error) {
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		return nil, fmt.Errorf("%s is not a cgroup v2 directory: %w", dir, err)
	}
	return &cgroupWindow{dir: dir}, nil
}

// pids are the processes of the cgroup and those below it.
func (c *cgroupWindow) pids() ([]int, error) {
	var out []int
	err := filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil && path == c.dir {
			return err
		}
		if err != nil || !d.IsDir() {
			return nil // a child cgroup removed meanwhile
		}
		data, _ := os.ReadFile(filepath.Join(path, "cgroup.procs")) // none when removed meanwhile
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out, err
}

func (c *cgroupWindow) sample(first bool) {
	cpu, err := readNumbers(filepath.Join(c.dir, "cpu.stat"))
	track(first, cpu, err, &c.cpuErr, &c.firstCPU, &c.lastCPU)
	io, err := readNumbers(filepath.Join(c.dir, "io.stat"))
	track(first, io, err, &c.ioErr, &c.firstIO, &c.lastIO)
	mem, err := readUint(filepath.Join(c.dir, "memory.current"))
	if err != nil {
		c.memErr = err
	} else {
		c.peakMem = max(c.peakMem, mem)
	}
}

// track keeps a cumulative file's first and last reading, or the error.
func track[T any](first bool, v T, err error, errp *error, firstp, lastp *T) {
	switch {
	case err != nil:
		*errp = err
	case first:
		*firstp, *lastp = v, v
	default:
		*lastp = v
	}
}

// apply puts the cgroup's figures in place of the /proc sums in totals
// where it has them, and says where not.
func (c *cgroupWindow) apply(part string, totals map[string]float64) []string {
	var notes []string
	if c.cpuErr == nil && c.firstCPU != nil {
		grow := func(k string) (float64, bool) {
			a, ok1 := c.firstCPU[k]
			b, ok2 := c.lastCPU[k]
			return float64(b) - float64(a), ok1 && ok2
		}
		user, uok := grow("user_usec")
		sys, sok := grow("system_usec")
		if uok && sok {
			totals[result.FigureUserCPU], totals[result.FigureSystemCPU] = user/1e6, sys/1e6
		} else {
			c.cpuErr = errors.New("cpu.stat has no user_usec and system_usec")
		}
	}
	if c.cpuErr != nil {
		delete(totals, result.FigureUserCPU)
		delete(totals, result.FigureSystemCPU)
		notes = append(notes, fmt.Sprintf("part %s: CPU not measured: %v", part, c.cpuErr))
	}
	if c.memErr == nil && c.peakMem > 0 {
		totals[result.FigurePeakRSS] = float64(c.peakMem)
	} else {
		notes = append(notes, fmt.Sprintf("part %s: memory.current not readable (%v): peak memory is the sum of its processes' RSS", part, cmp.Or(c.memErr, errors.New("no value"))))
	}
	if c.ioErr == nil && c.firstIO != nil {
		totals[result.FigureReadBytes] = float64(c.lastIO["rbytes"]) - float64(c.firstIO["rbytes"])
		totals[result.FigureWriteBytes] = float64(c.lastIO["wbytes"]) - float64(c.firstIO["wbytes"])
	} else {
		notes = append(notes, fmt.Sprintf("part %s: io.stat not readable (%v): storage I/O is the sum of its processes'", part, cmp.Or(c.ioErr, errors.New("no value"))))
	}
	return notes
}

// readNumbers reads a /proc or cgroup file's numbers: "name: n" and
// "name n" lines, and "k=n" fields summed over lines (io.stat's devices).
func readNumbers(path string) (map[string]uint64, error) {
	data, err := os.ReadFile(path)
	return parseNumbers(string(data)), err // none when unread
}

func parseNumbers(data string) map[string]uint64 {
	out := map[string]uint64{}
	for line := range strings.Lines(data) {
		f := strings.Fields(strings.Replace(line, ":", " ", 1))
		if len(f) == 2 {
			if v, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				out[f[0]] = v
			}
			continue
		}
		for _, kv := range f {
			k, v, ok := strings.Cut(kv, "=")
			if n, err := strconv.ParseUint(v, 10, 64); ok && err == nil {
				out[k] += n
			}
		}
	}
	return out
}

func readUint(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
}
