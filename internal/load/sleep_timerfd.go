//go:build linux && (amd64 || arm64)

package load

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sleeper sleeps with sub-millisecond precision. Go's timers wake up to
// ~1 ms late on Linux when the process is idle (the netpoller waits in
// whole milliseconds), which alone would break a 2,000/s schedule. A
// timerfd read through the netpoller wakes within tens of microseconds,
// and parks only the goroutine: no thread or P is held while waiting.
type sleeper struct {
	f   *os.File // nil: timerfd unavailable, use time.Sleep
	fd  uintptr
	buf [8]byte
}

func newSleeper() *sleeper {
	const clockMonotonic, tfdNonblock, tfdCloexec = 1, 0x800, 0x80000
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return &sleeper{}
	}
	// A non-blocking fd gives a pollable File; never call Fd() on it,
	// which would switch it to blocking mode.
	return &sleeper{f: os.NewFile(fd, "timerfd"), fd: fd}
}

// sleep sleeps about d (d > 0).
func (s *sleeper) sleep(d time.Duration) {
	if s.f == nil {
		time.Sleep(d)
		return
	}
	d = max(d, time.Microsecond)                                           // a zero value would disarm the timer
	spec := [4]int64{0, 0, int64(d / time.Second), int64(d % time.Second)} // struct itimerspec
	_, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, s.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	if errno != 0 {
		time.Sleep(d)
		return
	}
	_, _ = s.f.Read(s.buf[:]) // returns when the timer expires
}

func (s *sleeper) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
}
