package pipeline

import (
	"context"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

type DemoOptions struct {
	Service      *config.Config // the demo service to check
	Clean        *config.Config // the clean service, which the baseline is recorded from, when Service is not
	BaselinePath string         // this machine's demo baseline
	Rerecord     bool           // a new baseline even when there is one
	ResultPath   string
}

// Demo checks the demo service against this machine's demo baseline. When
// there is none yet (or Rerecord asks, or the benchmark changed) it first
// records one from the clean service; when the service to check is the
// clean one, that recording is the whole run and Demo returns nil.
func Demo(ctx context.Context, env Env, o DemoOptions) (*Judged, error) {
	src := baseline.FileSource{Path: o.BaselinePath}
	bl, err := readBaseline(ctx, src)
	if err != nil {
		return nil, err
	}
	if why := recordReason(bl, o); why != "" {
		if o.Clean == nil {
			fmt.Fprintf(env.log(), "%s: this run records it\n", why)
			res, err := recordDemo(ctx, env, o.Service, o.BaselinePath)
			if err != nil {
				return nil, err
			}
			return nil, writeResult(o.ResultPath, res) // the recorded runs are the service's runs
		}
		fmt.Fprintf(env.log(), "%s: recording it with the clean service first\n", why)
		if _, err := recordDemo(ctx, env, o.Clean, o.BaselinePath); err != nil {
			return nil, err
		}
	}
	src.Name = "this machine's demo baseline " + o.BaselinePath
	j, err := Check(ctx, env, CheckOptions{Config: o.Service, ResultPath: o.ResultPath, Baseline: src,
		CalibrateCommand: "tailgate demo --calibrate 10"})
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// recordReason says why Demo records a baseline before it checks; ""
// for no need.
func recordReason(bl *baseline.File, o DemoOptions) string {
	switch {
	case bl == nil:
		return "no demo baseline for this machine and benchmark yet (" + o.BaselinePath + ")"
	case o.Rerecord:
		return "recording a new demo baseline, as --record asks: it replaces " + o.BaselinePath
	case bl.DefinitionHash != o.Service.DefinitionHash():
		return "the demo baseline " + o.BaselinePath + " was recorded for another benchmark definition " +
			"(other --duration, --warmup or --rate, or another tailgate version); a baseline only compares runs of one definition, so a new one replaces it"
	}
	return ""
}

// recordDemo records a new demo baseline from cfg, replacing the old one,
// and returns the runs recorded.
func recordDemo(ctx context.Context, env Env, cfg *config.Config, path string) (*result.File, error) {
	res, err := headRuns(ctx, env, cfg, nil)
	if err != nil {
		return nil, err
	}
	bl := baseline.New(cfg.Name, res.DefinitionHash, res.Env, cfg.Gate.Window)
	bl.Append(res, baseline.Provenance{Job: "demo-" + res.Created.Format("20060102T150405"), Ref: "demo", Time: res.Created})
	if err := Runtime.Wrap(baseline.Write(path, bl)); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.out(), "recorded a baseline for this machine: %s (%d runs)\nrun `tailgate demo --mode check` again to check against it; `tailgate demo --mode check --slowdown 30%%` to see a regression caught\n", path, len(res.Runs))
	return res, nil
}
