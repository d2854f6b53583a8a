package load

import "sync/atomic"

// Sequence numbers the iterations of one dataset epoch (between two
// resets): {{seq}}, random values and feed rows derive from the number, so
// runs sharing a Sequence never offer a unique value twice. The zero
// Sequence starts at 0; it is safe for concurrent use.
type Sequence struct {
	next atomic.Uint64
}

func (s *Sequence) take() uint64 { return s.next.Add(1) - 1 }

func (s *Sequence) Taken() uint64 { return s.next.Load() }
