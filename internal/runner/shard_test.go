package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// A shard waits for each run's start time after its preparation, offers
// its share of the load, leaves the dataset to shard 1 and says in the
// file which shard it is.
func TestShardStartsEachRunAtItsTime(t *testing.T) {
	svc := newService(t)
	cfg := benchConfig(svc.URL, 2)
	// Headroom for a loaded machine: the shard must be ready before its
	// first start time, and each run must start before the next one's.
	start := time.Now().Add(1500 * time.Millisecond).Truncate(time.Millisecond)
	every := time.Second
	b := &Benchmark{Config: cfg, Sharding: Sharding{Part: load.Shard{Index: 2, Count: 2}, StartAt: start, Every: every}}
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if svc.resets.Load() != 0 {
		t.Errorf("shard 2/2 reset the dataset %d times; shard 1 does", svc.resets.Load())
	}
	want := result.Shard{Index: 2, Count: 2, StartAt: start.UTC(), Every: 1}
	if res.Shard == nil || *res.Shard != want {
		t.Errorf("file shard %+v, want %+v", res.Shard, want)
	}
	for i, r := range res.Runs {
		at := start.Add(time.Duration(i) * every)
		if r.Started.Before(at) || r.Started.After(at.Add(900*time.Millisecond)) {
			t.Errorf("run %d started %v, want at its start time %v", i+1, r.Started, at)
		}
		// 100/s over 200 ms is 20 hits; shard 2 of 2 starts the odd ones.
		if r.Iterations.Offered != 10 || r.OfferedRate != 50 {
			t.Errorf("run %d offered %d (%v/s), want 10 (50/s): half the load", i+1, r.Iterations.Offered, r.OfferedRate)
		}
	}
}

// The first shard resets the dataset as a whole benchmark does.
func TestFirstShardResetsTheDataset(t *testing.T) {
	svc := newService(t)
	b := &Benchmark{Config: benchConfig(svc.URL, 2), Sharding: Sharding{Part: load.Shard{Index: 1, Count: 3}}}
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if svc.resets.Load() != 2 {
		t.Errorf("shard 1/3 reset the dataset %d times, want once per run (2)", svc.resets.Load())
	}
}

// A shard that is ready after its start time fails instead of measuring
// alone.
func TestLateShardFails(t *testing.T) {
	svc := newService(t)
	b := &Benchmark{Config: benchConfig(svc.URL, 1), Sharding: Sharding{Part: load.Shard{Index: 1, Count: 2}, StartAt: time.Now().Add(-time.Second)}}
	res, err := b.Run(context.Background())
	if res != nil || err == nil || !strings.Contains(err.Error(), "after its start time") {
		t.Fatalf("Run = %v, %v; want no result and a late start", res, err)
	}
	if svc.items.Load() != 0 {
		t.Errorf("a late shard sent %d requests", svc.items.Load())
	}
}

func TestShardingCheck(t *testing.T) {
	t.Parallel()
	closed := benchConfig("http://127.0.0.1:1", 3)
	closed.Load.Model, closed.Load.VUs = config.ModelClosed, 2
	tool := benchConfig("http://127.0.0.1:1", 1)
	tool.Load.Engine = config.EngineCommand
	at := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	cases := []struct {
		s    Sharding
		cfg  *config.Config
		want string // "" for no error
	}{
		{Sharding{}, closed, ""},
		{Sharding{Part: load.Shard{Index: 2, Count: 2}}, closed, ""},
		{Sharding{Part: load.Shard{Index: 1, Count: 3}}, closed, "vus is 2: it cannot be split into 3 shards"},
		{Sharding{Part: load.Shard{Index: 1, Count: 2}}, tool, "load.engine is command"},
		{Sharding{Part: load.Shard{Index: 1, Count: 2}, StartAt: at}, closed, "--start-at with 3 runs needs --run-every"},
		{Sharding{Part: load.Shard{Index: 1, Count: 2}, StartAt: at, Every: 100 * time.Millisecond}, closed, "shorter than a run's warm-up and measure window"},
		{Sharding{Part: load.Shard{Index: 1, Count: 2}, StartAt: at, Every: time.Second}, closed, ""},
		{Sharding{StartAt: at}, tool, ""},
	}
	for i, c := range cases {
		err := c.s.Check(c.cfg)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("case %d: Check = %v, want %q", i, err, c.want)
		}
	}
}
