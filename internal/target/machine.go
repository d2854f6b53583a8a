package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MachineCPU is what the machine's processors did over a while.
type MachineCPU struct {
	// Cores is the number of online processors /proc/stat counts.
	Cores int
	// Busy is how many of them were busy on average (user, nice, system,
	// interrupts and time stolen by a hypervisor), 0…Cores.
	Busy float64
	// Over is how long it was sampled.
	Over time.Duration
}

// SampleMachineCPU reads the machine's CPU time from /proc/stat, waits d
// (or until ctx ends) and reads it again: what every process on the
// machine kept busy meanwhile, tailgate's children and neighbours alike.
func SampleMachineCPU(ctx context.Context, d time.Duration) (MachineCPU, error) {
	before, cores, err := readMachineCPU()
	if err != nil {
		return MachineCPU{}, err
	}
	start := time.Now()
	select {
	case <-ctx.Done():
		return MachineCPU{}, ctx.Err()
	case <-time.After(d):
	}
	after, _, err := readMachineCPU()
	if err != nil {
		return MachineCPU{}, err
	}
	busy, total := after.busy-before.busy, after.total()-before.total()
	if total == 0 || after.total() < before.total() {
		return MachineCPU{}, fmt.Errorf("/proc/stat: the CPU times did not advance in %s", d)
	}
	return MachineCPU{Cores: cores, Busy: float64(cores) * float64(busy) / float64(total), Over: time.Since(start)}, nil
}

// cpuTimes are the summed times of the "cpu" line of /proc/stat, in ticks.
type cpuTimes struct{ busy, idle uint64 }

func (c cpuTimes) total() uint64 { return c.busy + c.idle }

// readMachineCPU reads the "cpu" line of /proc/stat (see proc(5)) and
// counts the "cpuN" lines. Guest time is already part of user time, so
// it is not added again; idle and iowait are idle.
func readMachineCPU() (cpuTimes, int, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, "stat"))
	if err != nil {
		return cpuTimes{}, 0, err
	}
	var times cpuTimes
	cores := 0
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "cpu":
			if len(fields) < 9 {
				return cpuTimes{}, 0, fmt.Errorf("/proc/stat: %d CPU times on the cpu line, want ≥ 8", len(fields)-1)
			}
			for i, f := range fields[1:9] {
				v, err := strconv.ParseUint(f, 10, 64)
				if err != nil {
					return cpuTimes{}, 0, fmt.Errorf("/proc/stat: cpu line: %w", err)
				}
				if i == 3 || i == 4 { // idle, iowait
					times.idle += v
				} else {
					times.busy += v
				}
			}
			found = true
		case strings.HasPrefix(fields[0], "cpu"):
			cores++
		}
	}
	if !found || cores == 0 {
		return cpuTimes{}, 0, fmt.Errorf("/proc/stat has no cpu lines")
	}
	return times, cores, nil
}
