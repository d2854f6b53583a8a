package gate

import (
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// JudgeSequential judges the pairs measured so far of a sequential A/B job
// (base[i] and head[i] form pair i) under design d. final is set by the
// caller when no more pairs will come (the pair or time budget is spent);
// the verdict's Sequential.Done says whether the caller may stop.
//
// Contract for the job loop (pipeline): after each pair, call
// JudgeSequential with every pair so far; stop when Done.
//
// This first version judges the pairs as one fixed sample and is Done only
// at the budget; the sequential rule of stats.SeqDesign replaces it.
func JudgeSequential(base, head []result.Run, p Policy, d stats.SeqDesign, final bool) Verdict {
	p.SameJob, p.Paired = true, true
	v := Judge(base, head, p)
	minPairs, maxPairs := d.MinPairs, d.MaxPairs
	if minPairs == 0 {
		minPairs = stats.DefaultSeqMinPairs
	}
	if maxPairs == 0 {
		maxPairs = stats.DefaultSeqMaxPairs
	}
	v.Sequential = &Sequential{Pairs: len(head), MinPairs: minPairs, MaxPairs: maxPairs,
		Done: final || len(head) >= maxPairs, Reason: "fixed number of pairs"}
	return v
}
