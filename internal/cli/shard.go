package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

// shardFlags are the flags of `tailgate run` that make it one shard of a load offered by several processes.
type shardFlags struct {
	part, part0 shardValue
	startAt     timeValue
	every       time.Duration
}

func (s *shardFlags) register(fs *flag.FlagSet) {
	fs.Var(&s.part, "shard", "run share `I/N` of the load (1 ≤ I ≤ N): rate, max_inflight or VUs split N ways; merge the N results with tailgate merge")
	s.part0.zeroBased = true
	fs.Var(&s.part0, "shard0", "as --shard, with `K/N` counting K from 0 (Kubernetes' JOB_COMPLETION_INDEX)")
	fs.Var(&s.startAt, "start-at", "start the first run's warm-up at `TIME` (RFC 3339, or Unix seconds), the same for every shard")
	fs.DurationVar(&s.every, "run-every", 0, "with --start-at and several runs: start run k at TIME + k × `duration`")
}

func (s *shardFlags) sharding() (runner.Sharding, error) {
	if s.part.set && s.part0.set {
		return runner.Sharding{}, usageErr("give --shard or --shard0, not both")
	}
	if s.every != 0 && !s.startAt.set {
		return runner.Sharding{}, usageErr("--run-every needs --start-at")
	}
	part := map[bool]load.Shard{false: s.part.shard, true: s.part0.shard}[s.part0.set]
	return runner.Sharding{Part: part, StartAt: s.startAt.t, Every: s.every}, nil
}

type shardValue struct {
	shard     load.Shard
	zeroBased bool
	set       bool
}

func (v *shardValue) String() string {
	if v == nil || !v.set {
		return ""
	}
	return v.shard.String()
}

func (v *shardValue) Set(s string) error {
	is, ns, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(strings.TrimSpace(is))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || errI != nil || errN != nil {
		return fmt.Errorf("%q: want I/N, such as 2/4", s)
	}
	if v.zeroBased {
		i++
	}
	if n < 1 || i < 1 || i > n {
		return fmt.Errorf("%q: want %s", s, map[bool]string{true: "K/N with 0 ≤ K < N", false: "I/N with 1 ≤ I ≤ N"}[v.zeroBased])
	}
	v.shard, v.set = load.Shard{Index: i, Count: n}, true
	return nil
}

// timeValue is a point in time given as RFC 3339 or Unix seconds.
type timeValue struct {
	t   time.Time
	set bool
}

func (v *timeValue) String() string {
	if v == nil || !v.set {
		return ""
	}
	return v.t.Format(time.RFC3339Nano)
}

func (v *timeValue) Set(s string) (err error) {
	v.t, err = parseTime(s)
	v.set = err == nil
	return err
}

// parseTime reads RFC 3339 ("2026-11-29T21:00:00Z") or Unix seconds ("1795986000", "1795986000.25").
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	// Read digit by digit, not as a float: every shard must get the same instant to the nanosecond from the same text.
	bad := fmt.Errorf("%q: want an RFC 3339 time (2026-11-29T21:00:00Z) or Unix seconds", s)
	whole, frac, _ := strings.Cut(s, ".")
	secs, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || secs < 0 || secs > maxUnixSeconds || len(frac) > 9 || strings.HasPrefix(whole, "+") {
		return time.Time{}, bad
	}
	var nanos int64
	if frac != "" {
		if nanos, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil || frac[0] == '+' || frac[0] == '-' {
			return time.Time{}, bad
		}
	}
	return time.Unix(secs, nanos).UTC(), nil
}

// maxUnixSeconds is the end of the year 9999, the last one RFC 3339 writes.
const maxUnixSeconds = 253402300799

func cmdMerge(_ context.Context, e env, args []string) error {
	fs := newFlagSet("merge", "merge [-o merged.json] SHARD...", e.stderr)
	out := fs.String("o", "merged.json", "write the merged result JSON to `file`")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErr("merge needs the result files of every shard (run --shard I/N)")
	}
	merged, err := pipeline.Merge(e.pipelineEnv(nil, true), pipeline.MergeOptions{Shards: files, ResultPath: *out})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d shards merged into %d runs, written to %s\n", merged.Merged.Shards, len(merged.Runs), *out)
	return nil
}
