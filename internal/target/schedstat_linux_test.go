package target

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// processCPU is this process's CPU time by getrusage, an independent
// source of what threadNanos adds up.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestThreadNanosCountsThisProcess(t *testing.T) {
	t.Parallel()
	before, ok := threadNanos(os.Getpid())
	if !ok {
		t.Skip("no /proc/<pid>/task/*/schedstat on this kernel")
	}
	// spin until the kernel has charged 50 ms more CPU to this process:
	// on a busy machine that takes longer than 50 ms of wall time
	start := processCPU(t)
	x := 0
	for deadline := time.Now().Add(30 * time.Second); processCPU(t)-start < 50*time.Millisecond && time.Now().Before(deadline); {
		x++
	}
	used := processCPU(t) - start
	after, _ := threadNanos(os.Getpid())
	if d := time.Duration(after - before); d < used/2 || d > 2*used+time.Second {
		t.Errorf("%v of CPU (getrusage) counted as %v by schedstat (x=%d)", used, d, x)
	}
}
