package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Sharding makes a benchmark one share of a load that several tailgate
// processes, on one machine or many, offer one target together
// (`tailgate run --shard I/N --start-at T`); `tailgate merge` combines
// their result files into the run of the whole load. The zero value is a
// benchmark of its own.
type Sharding struct {
	Part load.Shard // this process's share (load.Shard.Split)
	// StartAt, when set, is when the first run's warm-up starts, the
	// same in every shard so that their measure windows coincide; run k
	// (from 0) starts at StartAt + k·Every. A run that is ready only
	// after its start time fails: it would measure alone.
	StartAt time.Time
	Every   time.Duration
}

func (s Sharding) Sharded() bool { return s.Part.Count > 0 }

// Check refuses sharding the benchmark cfg cannot run.
func (s Sharding) Check(cfg *config.Config) error {
	l := cfg.Load
	if s.Sharded() && l.Engine == config.EngineCommand {
		return fmt.Errorf("--shard: load.engine is command: tailgate cannot split the load of your tool; run the tool's own distributed mode")
	}
	if s.Sharded() && len(l.Phases) > 0 {
		return fmt.Errorf("--shard: load.phases cannot be sharded yet: each phase starts after its own reset and drain, so the shards' phases would not measure together")
	}
	if err := s.Part.Check(); err != nil {
		return err
	}
	if l.Engine != config.EngineCommand {
		if _, err := s.Part.Split(load.FromConfig(l)); err != nil {
			return fmt.Errorf("--shard %s: %w", s.Part, err)
		}
	}
	if s.StartAt.IsZero() {
		return nil
	}
	if s.Every < 0 {
		return fmt.Errorf("--run-every must not be negative")
	}
	if l.Runs > 1 && s.Every == 0 {
		return fmt.Errorf("--start-at with %d runs needs --run-every: the time from one run's start to the next's, at least warm-up + duration + request_timeout plus what reset, verify and drain take", l.Runs)
	}
	if span := l.Warmup.D() + l.Duration.D(); l.Runs > 1 && s.Every < span {
		return fmt.Errorf("--run-every %v is shorter than a run's warm-up and measure window (%v)", s.Every, span)
	}
	return nil
}

// resetsDataset reports whether this process resets and verifies the
// dataset: with several shards on one target only the first does, so
// that N resets do not run into each other (every shard still drains).
func (s Sharding) resetsDataset() bool { return s.Part.Index <= 1 }

func (s Sharding) record(f *result.File) {
	if !s.Sharded() {
		return
	}
	f.Shard = &result.Shard{Index: s.Part.Index, Count: s.Part.Count, StartAt: s.StartAt.UTC(), Every: s.Every.Seconds()}
}

// waitForStart waits until run i's start time, once it is ready; a run
// ready after that fails, since its window would not be the others'.
func (b *Benchmark) waitForStart(ctx context.Context, i int) error {
	if b.Sharding.StartAt.IsZero() {
		return nil
	}
	at := b.Sharding.StartAt.Add(time.Duration(i) * b.Sharding.Every)
	if late := time.Since(at); late > 0 {
		return fmt.Errorf("ready %v after its start time %s: the shards would not measure together (give --start-at more lead, or --run-every more room)",
			late.Round(time.Millisecond), at.UTC().Format(time.RFC3339Nano))
	}
	b.observer().Step(i, "wait")
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
