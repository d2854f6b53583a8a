package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

func init() {
	register("validate", "check a benchmark file without running it: parse, validate, templates and {{env}} variables", cmdValidate)
}

func cmdValidate(_ context.Context, e env, args []string) error {
	fs := newFlagSet("validate", "validate -c tailgate.yml", e.stderr)
	path := fs.String("c", "tailgate.yml", "the benchmark `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := config.LoadFile(*path)
	if err != nil {
		return pipeline.Usage.Wrap(err)
	}
	v, err := pipeline.Validate(e.pipelineEnv(cfg, true), cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", *path, err)
	}
	for _, w := range v.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(e.stdout, "%s: valid\n", *path)
	describeBenchmark(e.stdout, cfg)
	if v.Setup != "" {
		fmt.Fprintf(e.stdout, "  %-10s %s\n", "setup", v.Setup)
	}
	return nil
}

// describeBenchmark says what a run of cfg will do, as tailgate read it.
func describeBenchmark(w io.Writer, cfg *config.Config) {
	line := func(k, format string, a ...any) { fmt.Fprintf(w, "  %-10s "+format+"\n", append([]any{k}, a...)...) }
	line("benchmark", "%s", cfg.Name)
	t := cfg.Target
	target := t.URL
	if t.Start != nil {
		target += ", started by: " + t.Start.Command.String()
		if t.Start.Dir != "" {
			target += " (in " + t.Start.Dir + ")"
		}
	}
	if t.Ready != nil {
		target += ", ready at GET " + t.Ready.Path
	}
	line("target", "%s", target)
	if b := cfg.Build; b != nil {
		line("build", "%s", b.Command.String())
	}
	if ds := cfg.Dataset; ds.Reset != nil || ds.Verify != nil {
		var parts []string
		if ds.Reset != nil {
			parts = append(parts, "reset by "+describeAction(*ds.Reset))
		}
		if ds.Verify != nil {
			parts = append(parts, "verified by "+describeAction(ds.Verify.Action))
		}
		line("dataset", "%s", strings.Join(parts, "; "))
	} else {
		line("dataset", "no reset: every run starts from what the last one left")
	}
	if cfg.Load.Engine == config.EngineCommand {
		line("load", "%s, output %s", cfg.Load.Command.String(), cfg.Load.Output)
	} else {
		for _, ph := range cfg.Load.RunPhases() {
			name := "load"
			if ph.Name != "" {
				name = "phase " + ph.Name
			}
			line("", "%s: %s", name, describeModel(ph.Load))
		}
		line("runs", "%d of about %s of load each (resets, verifies, drains and starts come on top)", cfg.Load.Runs, cfg.Load.RunTime())
	}
	for _, sc := range cfg.Scenarios {
		line("scenario", "%s: %d %s, weight %d", sc.Name, len(sc.Steps), pluralWord(len(sc.Steps), "step", "steps"), sc.Weight)
	}
	if ab := cfg.AB; ab != nil && !ab.Base.IsEmpty() {
		base := "target " + ab.Base.URL
		if ab.Base.Ref != "" {
			base = "git ref " + ab.Base.Ref
		}
		line("A/B base", "%s; %d to %d pairs", base, ab.MinPairs, ab.MaxPairs)
	}
}

func describeModel(l config.Load) string {
	s := fmt.Sprintf("closed, %d virtual users", l.VUs)
	if l.Model == config.ModelOpen {
		s = fmt.Sprintf("open, %s (max_inflight %d)", l.Rate, l.MaxInflight)
	}
	return fmt.Sprintf("%s; %s warm-up + %s measured", s, l.Warmup, l.Duration)
}

func describeAction(a config.Action) string {
	switch {
	case a.Request != nil:
		return strings.TrimSpace(a.Request.Method + " " + a.Request.Path)
	case a.Command != nil:
		return "the command " + a.Command.String()
	}
	return "nothing"
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
