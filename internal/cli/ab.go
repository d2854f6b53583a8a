package cli

import (
	"context"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

func init() {
	register("ab", "measure a base and a head target in one job, interleaved, and judge head against base", cmdAB)
}

func cmdAB(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("ab", "ab -c tailgate.yml [--aa] [--record-base] [--report report.json]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	aa := fs.Bool("aa", false, "run the base target on both sides: show the noise this job sees and whether it would raise a false alarm")
	recordBase := fs.Bool("record-base", false, "also append the base side's runs to the stored baseline")
	blFlag := fs.String("baseline", "", "the baseline `file` whose calibrated noise is used (default: gate.baseline, else baselines/<name>.json)")
	var prov provenanceFlags
	prov.register(fs)
	var rf reportFlags
	rf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e = bf.output.apply(e)
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	path := baselinePath(*blFlag, cfg, cfg.Name)
	j, err := pipeline.AB(ctx, e.pipelineEnv(cfg, bf.quiet), pipeline.ABOptions{Config: cfg, Baseline: baseline.FileSource{Path: path}, AA: *aa})
	if err != nil {
		return err
	}
	if *recordBase {
		rec, err := pipeline.Record(ctx, e.pipelineEnv(cfg, bf.quiet), pipeline.RecordOptions{Config: cfg, Head: j.Base, Path: path, Provenance: prov.provenance(e.getenv)})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "appended %d base runs to %s\n", len(rec.Head.Runs), path)
	}
	return conclude(ctx, j, abFailOn(rf, *aa), rf.publishers(e)...)
}

// abFailOn: an A/A run measures noise; it has nothing to fail.
func abFailOn(rf reportFlags, aa bool) pipeline.FailOn {
	if aa {
		return pipeline.FailOn{}
	}
	return rf.failOn()
}
