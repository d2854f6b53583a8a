//go:build !(linux && (amd64 || arm64))

package load

import "time"

// sleeper falls back to time.Sleep where timerfd is not available.
type sleeper struct{}

func newSleeper() *sleeper { return &sleeper{} }

func (s *sleeper) sleep(d time.Duration) { time.Sleep(d) }

func (s *sleeper) close() {}
