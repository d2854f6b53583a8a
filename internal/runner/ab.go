package runner

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// Side is one side of an A/B comparison.
type Side int

const (
	Base Side = iota
	Head
)

func (s Side) String() string {
	if s == Base {
		return "base"
	}
	return "head"
}

// Order returns the interleaved order of 2·runs runs: pairs alternating AB,
// BA, AB, … ("abba"), or each pair in a random order from seed ("random").
// Either way every pair holds one run of each side, so slow drift hits both.
func Order(kind string, runs int, seed int64) []Side {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xab))
	order := make([]Side, 0, 2*runs)
	for p := 0; p < runs; p++ {
		first := Side(p % 2)
		if kind == config.OrderRandom {
			first = Side(rng.IntN(2))
		}
		order = append(order, first, 1-first)
	}
	return order
}

// ABResult is what an A/B benchmark measured: a result file per side
// (each naming its target's log file in TargetLog) and the order the runs
// were made in.
type ABResult struct {
	Base, Head *result.File
	Order      []Side
}

// RunAB measures base and head in one job: both targets are started, then
// load.runs runs of each are made in the interleaved order, each with its own
// dataset reset, verify and drain. With aa set, the base target stands on
// both sides (an A/A check of the noise this job sees).
func (b *Benchmark) RunAB(ctx context.Context, ab config.AB, aa bool) (*ABResult, error) {
	plan, err := b.compile()
	if err != nil {
		return nil, err
	}
	headTarget := ab.Head
	if aa {
		headTarget = ab.Base
	}
	base, err := b.start(ctx, ab.Base, "base")
	if err != nil {
		return nil, err
	}
	defer base.stop()
	head := base
	if !aa {
		if head, err = b.start(ctx, headTarget, "head"); err != nil {
			return nil, err
		}
		defer head.stop()
	}
	return b.interleave(ctx, plan, map[Side]*running{Base: base, Head: head}, Order(ab.Order, b.Config.Load.Runs, b.Config.Seed), aa)
}

func (b *Benchmark) interleave(ctx context.Context, plan *scenario.Plan, targets map[Side]*running, order []Side, aa bool) (*ABResult, error) {
	out := &ABResult{Base: b.newFile(), Head: b.newFile(), Order: order}
	out.Base.TargetLog, out.Head.TargetLog = targets[Base].logPath, targets[Head].logPath
	files := map[Side]*result.File{Base: out.Base, Head: out.Head}
	for i, side := range order {
		tgt := *targets[side]
		tgt.label = side.String()
		if aa {
			tgt.label = "base as " + side.String()
		}
		run, err := b.runOnce(ctx, plan, &tgt, i, len(order))
		if err != nil {
			return nil, fmt.Errorf("run %d of %d (%s): %w", i+1, len(order), side, err)
		}
		run.Index = len(files[side].Runs)
		files[side].Runs = append(files[side].Runs, *run)
	}
	return out, nil
}
