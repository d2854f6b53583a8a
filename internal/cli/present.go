package cli

import (
	"context"
	"flag"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/publish"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

type reportFlags struct {
	jsonPath           string
	markdownPath       string
	htmlPath           string
	failOnInconclusive bool
}

func (r *reportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.jsonPath, "report", "", "write the JSON report to `file`")
	fs.StringVar(&r.markdownPath, "markdown", "", "write the Markdown report (PR comment, job summary) to `file`")
	fs.StringVar(&r.htmlPath, "html", "", "write the self-contained HTML report (figures of every gated metric) to `file`")
	fs.BoolVar(&r.failOnInconclusive, "fail-on-inconclusive", false, "exit 1 when the verdict is inconclusive")
}

func (r reportFlags) publishers(e env) []publish.Publisher {
	return []publish.Publisher{publish.Terminal{W: e.stdout}, publish.Files{JSON: r.jsonPath, Markdown: r.markdownPath},
		publish.HTML{Path: r.htmlPath}}
}

// failOn: a regression fails, an inconclusive verdict when asked; an A/A run measures noise, and has nothing to fail.
func (r reportFlags) failOn(aa bool) pipeline.FailOn {
	if aa {
		return pipeline.FailOn{}
	}
	return pipeline.FailOn{Regression: true, Inconclusive: r.failOnInconclusive, InconclusiveSetting: "--fail-on-inconclusive"}
}

func conclude(ctx context.Context, j pipeline.Judged, fail pipeline.FailOn, pubs ...publish.Publisher) error {
	if err := publish.All(ctx, j.Input, pubs...); err != nil {
		return pipeline.Runtime.Wrap(err)
	}
	return fail.Err(j.Verdict)
}

// pipelineEnv is the world of a use case that runs the benchmark cfg:
// stdout for its tables, stderr for notices and progress (none when quiet).
func (e env) pipelineEnv(cfg *config.Config, quiet bool) pipeline.Env {
	return pipeline.Env{Out: e.stdout, Log: e.stderr, Progress: newProgress(e, cfg, quiet), Machine: runner.DetectEnv(Version),
		Processes: e.processes(), TempDir: targetLogDir(e), Getenv: e.getenv, Mask: e.mask}
}
