package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/report"
)

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

// lineFunc writes one line of the description: a key, then the formatted value.
type lineFunc func(k, format string, a ...any)

func describeBenchmark(w io.Writer, cfg *config.Config) {
	line := func(k, format string, a ...any) { fmt.Fprintf(w, "  %-10s "+format+"\n", append([]any{k}, a...)...) }
	line("benchmark", "%s", cfg.Name)
	if t := cfg.Target; t.URL == "" {
		line("target", "none at the top level: each A/B side names its own")
	} else {
		line("target", "%s", describeTarget(t))
		describeParts(line, t)
	}
	if b := cfg.Build; b != nil {
		line("build", "%s", b.Command.String())
	}
	var ds []string
	if r := cfg.Dataset.Reset; r != nil {
		ds = append(ds, "reset by "+describeAction(*r))
	}
	if v := cfg.Dataset.Verify; v != nil {
		ds = append(ds, "verified by "+describeAction(v.Action))
	}
	line("dataset", "%s", cmp.Or(strings.Join(ds, "; "), "no reset: every run starts from what the last one left"))
	describeLoad(line, cfg)
	if f := cfg.Feed; f != nil {
		per := map[string]string{config.FeedPerVU: "each virtual user", config.FeedPerIteration: "each iteration"}[f.Per]
		end := map[string]string{config.FeedWrap: "then start again at the first", config.FeedFail: "then fail the run"}[f.AtEnd]
		line("feed", "%s: %d %s of %s; %s takes the next row, %s", f.File, len(f.Rows), plural.Of(len(f.Rows), "row", "rows"), strings.Join(f.Columns, ", "), per, end)
	}
	for _, sc := range cfg.Scenarios {
		line("scenario", "%s: %d %s, weight %d", sc.Name, len(sc.Steps), plural.Of(len(sc.Steps), "step", "steps"), sc.Weight)
	}
	if ab := cfg.AB; ab != nil {
		describeAB(line, cfg, *ab)
	}
}

func describeTarget(t config.Target) string {
	s := t.URL
	if t.Start != nil {
		s += ", started by: " + t.Start.Command.String() + map[bool]string{true: " (in " + t.Start.Dir + ")"}[t.Start.Dir != ""]
	}
	if t.Ready != nil {
		s += ", ready at GET " + t.Ready.Path
	}
	return s
}

// describeParts says what of t is measured and which counters are read.
func describeParts(line lineFunc, t config.Target) {
	line("measured", "%s", describeMeasured(t))
	if len(t.Counters) > 0 {
		line("counters", "%s", describeCounters(t.Counters))
	}
}

// describeLoad says how each phase loads the target and how long the runs take, then the setup steps.
func describeLoad(line lineFunc, cfg *config.Config) {
	if cfg.Load.Engine == config.EngineCommand {
		line("load", "%s, output %s", cfg.Load.Command.String(), cfg.Load.Output)
	} else {
		for _, ph := range cfg.Load.RunPhases() {
			l, name := ph.Load, map[bool]string{true: "load", false: "phase " + ph.Name}[ph.Name == ""]
			model := map[bool]string{false: fmt.Sprintf("closed, %d virtual users", l.VUs), true: fmt.Sprintf("open, %s (max_inflight %d)", l.Rate, l.MaxInflight)}[l.Model == config.ModelOpen]
			line("", "%s: %s; %s warm-up + %s measured", name, model, l.Warmup, l.Duration)
		}
		line("runs", "%d of about %s of load each (resets, verifies, drains and starts come on top)", cfg.Load.Runs, cfg.Load.RunTime())
	}
	st := cfg.Setup
	if st != nil && len(st.Run) > 0 {
		line("setup", "run: %s, once per run before the warm-up (not measured)", describeSteps(st.Run))
	}
	if st != nil && len(st.VU) > 0 { // how often the vu steps run: each phase's virtual users or workers
		var users []string
		for _, ph := range cfg.Load.RunPhases() {
			who := map[bool]string{false: fmt.Sprintf("%d virtual users", ph.Load.VUs), true: fmt.Sprintf("%d workers (max_inflight)", ph.Load.MaxInflight)}[ph.Load.Model == config.ModelOpen]
			users = append(users, strings.TrimSuffix(who+" in "+ph.Name, " in "))
		}
		line("setup", "vu: %s, once per virtual user or open-model worker (not measured): %s", describeSteps(st.VU), strings.Join(users, ", "))
	}
}

// describeAB says what each A/B side is, what a block is and the budget.
func describeAB(line lineFunc, cfg *config.Config, ab config.AB) {
	line("A/B base", "%s", describeSide(ab.Base, "the PR's base commit in the Action, or tailgate ab --base-ref"))
	line("A/B head", "%s", describeSide(ab.Head, "the working tree, started as target says"))
	for i, s := range []config.ABSide{ab.Base, ab.Head} {
		if side := [2]string{"base", "head"}[i]; s.HasTarget() { // on lines of their own under the side's
			describeParts(func(k, format string, a ...any) { line("", "%s "+k+": "+format, append([]any{side}, a...)...) }, s.TargetOr(cfg.Target))
		}
	}
	shape := pipeline.ABShape(cfg, ab)
	if !shape.Blocks() {
		line("unit", "a pair of whole runs, one side at a time, as %s; %s; %d to %d blocks", report.ApartReason(shape.WholeRuns), ab.Order, ab.MinBlocks, ab.MaxBlocks)
	} else {
		how := "an open phase loads both sides at once; a closed one, probed both ways before the first block's windows, loads them at once only where that changed neither side's CPU per iteration (nor the ratio of iterations/s where gated), else alternates"
		if shape.Alternate.Why != 0 {
			how = "every phase alternates between the sides, as " + report.ApartReason(shape.Alternate)
		}
		line("unit", "a block: %d to %d; in a block each phase measures each side in %d windows of %s%s, each after a %s warm-up (the phase's warm-up first, longer in the first block while the sides still get faster); %s",
			ab.MinBlocks, ab.MaxBlocks, shape.Windows, shape.Window, map[bool]string{true: " (ab.window unset: longer where 3 lifecycles of a virtual user take longer in the first block's warm-up)"}[ab.Window == 0]+
				map[bool]string{true: fmt.Sprintf(" (ab.windows unset: up to twice as many where they would hold under %d lifecycles of a virtual user a block)", config.BlockLifecycles)}[ab.Windows == 0], ab.WindowWarmup, how)
	}
	budget := map[bool]string{true: fmt.Sprintf(" or max_time %s (builds not counted), whichever comes first", ab.MaxTime)}[ab.MaxTime > 0]
	line("budget", "at most %d %s%s; a clear verdict ends the job sooner", ab.MaxBlocks, plural.Of(ab.MaxBlocks, "block", "blocks"), budget)
}

// describeSide says what an A/B side is built and started from, or where it comes from when the file leaves it empty.
func describeSide(s config.ABSide, empty string) string {
	var parts []string
	if s.Ref != "" {
		parts = append(parts, "git ref "+s.Ref+" (built and started by tailgate in a worktree)")
	}
	if s.HasTarget() {
		parts = append(parts, "target "+s.URL)
	}
	return cmp.Or(strings.Join(parts, ", "), empty)
}

func describeMeasured(t config.Target) string {
	var s string
	switch {
	case t.Start != nil:
		s = "the target's processes (tailgate starts them)"
	case t.PIDFile != "":
		s = "the target's processes (pid from " + t.PIDFile + ")"
	default:
		s = "not the target's CPU or memory (tailgate neither starts it nor has its pid_file)"
	}
	for _, m := range t.Measure {
		s += "; part " + m.String()
	}
	return s
}

func describeCounters(cs []config.CounterSource) string {
	var out []string
	for _, c := range cs {
		s := c.Name
		switch {
		case c.Prometheus != nil:
			s += " (Prometheus " + cmp.Or(c.Prometheus.Path, c.Prometheus.URL) + ": " + strings.Join(c.Prometheus.Metrics, ", ")
		case c.Command != nil:
			s += " (the command " + c.Command.String()
		case c.PGStatStatements != nil:
			s += " (pg_stat_statements of the database " + c.PGStatStatements.Database + ": " + strings.Join(config.PGStatCounters, ", ") + ", and the statements that changed"
		}
		if len(c.Gate) > 0 {
			s += "; gated: " + strings.Join(c.Gate, ", ")
		}
		out = append(out, s+")")
	}
	return strings.Join(out, "; ") + ", read before and after each measured window"
}

// describeSteps names setup steps: "2 steps (login, profile)".
func describeSteps(steps []config.Step) string {
	names := make([]string, len(steps))
	for i, st := range steps {
		names[i] = cmp.Or(st.Name, strings.TrimSpace(st.Method+" "+st.Path))
	}
	return fmt.Sprintf("%d %s (%s)", len(steps), plural.Of(len(steps), "step", "steps"), strings.Join(names, ", "))
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
