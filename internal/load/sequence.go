package load

import "sync/atomic"

// Sequence numbers the iterations of one dataset epoch: everything a
// target's dataset holds between two resets. An iteration's {{seq}}, its
// random values and its per-iteration feed row are drawn from its number,
// so as long as the runs on one dataset share a Sequence, no value a
// lifecycle writes (a unique title, an e-mail, an idempotency key) is
// offered twice to a dataset that may still hold it. A shard maps the
// numbers it takes into its own (Shard.seqOf), so shards stay disjoint.
// The zero Sequence starts at 0; it is safe for concurrent use.
type Sequence struct {
	next atomic.Uint64
}

// take returns the next number.
func (s *Sequence) take() uint64 { return s.next.Add(1) - 1 }

// Taken is how many numbers have been taken so far.
func (s *Sequence) Taken() uint64 { return s.next.Load() }
