package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tailgate-ci/tailgate/internal/importer"
	_ "github.com/tailgate-ci/tailgate/internal/importer/all" // every format a tool can write
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// measureTool is the measure step of engine: command: the user's load tool
// makes the load and writes its results (in its side's tree), which are
// imported as the run. The target's resources are sampled while it runs.
func (b *Benchmark) measureTool(ctx context.Context, tgt *running, i, runs int) (*result.Run, error) {
	l := b.Config.Load
	output := tgt.inTree(l.Output)
	// The previous run's output goes, so that a tool that fails to write
	// it is an error instead of a stale result.
	if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
		return nil, fmt.Errorf("preparing load.output: %w", err)
	}
	if err := os.Remove(output); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("removing the previous load.output: %w", err)
	}
	ch := tgt.children.With(target.TargetURLEnv+"="+tgt.url, "TAILGATE_OUTPUT="+output, "TAILGATE_RUN="+strconv.Itoa(i), "TAILGATE_RUNS="+strconv.Itoa(runs))
	var sampler sampling
	sampler.start(ctx, tgt, tgt.path)
	started := b.now()
	exit, err := target.RunTool(ctx, l.Command, ch, l.CommandTimeout.D(), b.log())
	res, note, footprint := sampler.stop(ctx, tgt)
	if err != nil {
		return nil, err
	}
	run, err := importer.ImportFile(output, l.Format)
	if err != nil {
		return nil, &target.StepError{Step: target.StepLoad, Saw: fmt.Sprintf("the command exited with status %d", exit), Err: fmt.Errorf("importing its output: %w", err)}
	}
	run.Index, run.Started = i, started
	if exit != 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("the load command exited with status %d (failed thresholds?)", exit))
	}
	run.Summarize()
	addResources(run, res, note)
	footprint.AddTo(run)
	return run, nil
}
