package pipeline

import (
	"github.com/tailgate-ci/tailgate/internal/result"
)

type MergeOptions struct {
	Shards     []string // the result files of `run --shard I/N`, in any order
	ResultPath string
}

// Merge combines the shard files of one sharded benchmark into the result
// of the whole load (result.MergeShards), writes it and shows its runs.
// Files that cannot be read, or are not every shard of one benchmark, are
// bad input; nothing is written then.
func Merge(env Env, o MergeOptions) (*result.File, error) {
	files := make([]*result.File, len(o.Shards))
	for i, path := range o.Shards {
		f, err := result.ReadFile(path)
		if err != nil {
			return nil, Usage.Wrap(err)
		}
		files[i] = f
	}
	merged, err := result.MergeShards(files, o.Shards)
	if err != nil {
		return nil, Usage.Wrap(err)
	}
	merged.Created = env.now()
	if err := writeResult(o.ResultPath, merged); err != nil {
		return nil, err
	}
	showRuns(env, "", merged)
	return merged, nil
}
