package target

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is this process's CPU time by getrusage, an independent
// source of what processNanos reads.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestProcessNanosCountsThisProcess(t *testing.T) {
	before, ok := processNanos(os.Getpid())
	if !ok {
		t.Fatal("this process's CPU-time clock could not be read")
	}
	// spin until the kernel has charged 50 ms more CPU to this process:
	// on a busy machine that takes longer than 50 ms of wall time
	start := processCPU(t)
	x := 0
	for deadline := time.Now().Add(30 * time.Second); processCPU(t)-start < 50*time.Millisecond && time.Now().Before(deadline); {
		x++
	}
	used := processCPU(t) - start
	after, _ := processNanos(os.Getpid())
	if d := time.Duration(after - before); d < used/2 || d > 2*used+time.Second {
		t.Errorf("%v of CPU (getrusage) counted as %v by the process clock (x=%d)", used, d, x)
	}
}

// A server that answers each connection in a thread of its own: the
// thread's run time must count after the thread has ended (the sum of the
// live threads' schedstat lost it).
func TestProcessNanosKeepsEndedThreads(t *testing.T) {
	before, _ := processNanos(os.Getpid())
	burned := make(chan time.Duration)
	tids := make(chan int, 1)
	go func() {
		runtime.LockOSThread()
		// Go does not end the main thread: go on in a thread of its own
		for unix.Gettid() == os.Getpid() {
			runtime.UnlockOSThread()
			runtime.Gosched()
			runtime.LockOSThread()
		} // never unlocked: the thread ends with the goroutine
		tids <- unix.Gettid()
		var ts unix.Timespec
		spent := func() time.Duration {
			_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
			return time.Duration(ts.Nano())
		}
		start := spent()
		for deadline := time.Now().Add(30 * time.Second); spent()-start < 200*time.Millisecond && time.Now().Before(deadline); {
		}
		burned <- spent() - start
	}()
	tid, used := <-tids, <-burned
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid)); os.IsNotExist(err) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("thread %d did not end", tid)
		}
	}
	after, _ := processNanos(os.Getpid())
	if d := time.Duration(after - before); d < used*9/10 {
		t.Errorf("an ended thread ran %v of CPU; the process clock grew by %v", used, d)
	}
}
