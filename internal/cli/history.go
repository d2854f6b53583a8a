package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// historySeed is the seed of the permutation tests: fixed, so that one history always gives the same change points.
const historySeed = 22

func cmdHistory(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("history", "history [-c tailgate.yml | --history FILE] [--since REF|DATE] [--html FILE] [--fail-on-regression=false]", e.stderr)
	cfgPath := fs.String("c", "tailgate.yml", "the benchmark `file`: its gated metrics, gate.min_effect and gate.alpha, and the history beside its baseline")
	historyFlag := fs.String("history", "", "the history `file` (default: beside the baseline, <baseline>.history.jsonl)")
	htmlPath := fs.String("html", "", "write the trend page, one self-contained HTML `file`")
	failOn := fs.Bool("fail-on-regression", true, "exit 1 when main is at a regressed level of a gated metric (by its change points or by its A/B chain)")
	sinceFlag := fs.String("since", "", "count the A/B chain's creep from this git `ref` (a tag: v1.4) or date (2026-11-01); default: the chain's start")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("history takes no arguments, got %q", fs.Arg(0))
	}
	cfg, path, err := historyInput(*cfgPath, flagSet(fs, "c"), *historyFlag)
	if err != nil {
		return err
	}
	since, err := sinceOf(ctx, *sinceFlag)
	if err != nil {
		return err
	}
	in, err := pipeline.History(pipeline.HistoryOptions{Config: cfg, Path: path, Seed: historySeed, Since: since})
	if err != nil {
		return err
	}
	if err := report.WriteHistoryText(e.stdout, in); err != nil {
		return pipeline.Runtime.Wrap(err)
	}
	if *htmlPath != "" {
		if err := atomicfile.Write(*htmlPath, func(w io.Writer) error { return report.WriteHistoryHTML(w, in) }); err != nil {
			return pipeline.Runtime.Wrap(err)
		}
		fmt.Fprintf(e.stdout, "wrote the trend page %s\n", *htmlPath)
	}
	if n := len(gate.Level(in.Verdict, in.Chain).Regressed); *failOn && n > 0 {
		return pipeline.Regression.Errorf("main is at a regressed level of %d gated %s", n, plural.Of(n, "metric", "metrics"))
	}
	return nil
}

// sinceOf reads --since: a date (YYYY-MM-DD, UTC), else a git ref of the checkout, resolved to its commit.
func sinceOf(ctx context.Context, s string) (pipeline.Since, error) {
	if s == "" {
		return pipeline.Since{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return pipeline.Since{Time: t, Name: s}, nil
	}
	sha, err := baseline.ResolveCommit(ctx, ".", s, baseline.ExecGit{})
	if err != nil {
		return pipeline.Since{}, usageErr("--since %q: not a date (2026-11-01) nor a git ref of this checkout: %v", s, err)
	}
	return pipeline.Since{Commit: sha, Name: s}, nil
}

// historyInput is the config (nil for a missing default tailgate.yml with
// --history) and the history file: the flag's, else beside the baseline.
func historyInput(cfgPath string, cfgGiven bool, historyFlag string) (*config.Config, string, error) {
	if historyFlag != "" && !cfgGiven {
		if _, err := os.Stat(cfgPath); errors.Is(err, fs.ErrNotExist) {
			return nil, historyFlag, nil
		}
	}
	cfg, err := config.LoadFile(cfgPath)
	if err != nil {
		return nil, "", pipeline.Usage.Wrap(err)
	}
	return cfg, cmp.Or(historyFlag, baseline.HistoryPath(baselinePath("", cfg, cfg.Name))), nil
}
