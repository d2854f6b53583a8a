package load

import "fmt"

// Shard is the Index-th (from 1) of Count shares of a load that several
// generators offer one target together (tailgate run --shard I/N); zero is
// the whole load. Shard I takes iterations I-1, I-1+N, … of the whole
// schedule and numbering ({{seq}}), so the shards together offer exactly
// what one generator would; vu numbers continue from shard to shard.
type Shard struct {
	Index, Count int
}

// Whole reports whether s is the whole load (no sharding, or 1/1).
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Check refuses a shard that is not one of its count.
func (s Shard) Check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: want I/N with 1 ≤ I ≤ N", s.Index, s.Count)
	}
	return nil
}

// Split returns shard s's share of the load phase o: VUs or max_inflight
// divided as evenly as possible (the first shards get one more; each at
// least one), with Part and FirstVU set. The shares add up to the whole.
func (s Shard) Split(o Options) (Options, error) {
	if err := s.Check(); err != nil {
		return o, err
	}
	if s.Whole() {
		return o, nil
	}
	var err error
	switch o.Model {
	case Closed:
		o.VUs, o.FirstVU, err = s.share(o.VUs, "closed model: vus")
	case Open:
		o.MaxInflight, o.FirstVU, err = s.share(o.MaxInflight, "open model: max_inflight")
	default:
		err = fmt.Errorf("model %q cannot be sharded", o.Model)
	}
	if err != nil {
		return o, err
	}
	o.Part = s
	return o, nil
}

// share is this shard's count of total workers and the number of its first.
func (s Shard) share(total int, what string) (n, first int, err error) {
	if total < s.Count {
		return 0, 0, fmt.Errorf("%s is %d: it cannot be split into %d shards of at least one each", what, total, s.Count)
	}
	base, extra, i := total/s.Count, total%s.Count, s.Index-1
	if i < extra { // the first extra shards take one more
		return base + 1, i * (base + 1), nil
	}
	return base, i*base + extra, nil
}

// seqOf is the number of the k-th iteration this shard runs (k from 0).
func (s Shard) seqOf(k uint64) uint64 {
	if s.Whole() {
		return k
	}
	return uint64(s.Index-1) + k*uint64(s.Count)
}
