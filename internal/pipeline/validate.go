package pipeline

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// Validation is what Validate found in a benchmark that parses.
type Validation struct {
	// Warnings are what may not work as meant, said without failing: the
	// config's own and what this machine lacks now (a program the build
	// has not made yet).
	Warnings []string
	Setup    string // what the setup steps cost in logins; "" without any
}

// Validate checks a parsed, valid benchmark without running any load. A
// scenario that cannot run is a Usage error; what only a build or a later
// step may provide is a warning.
func Validate(env Env, cfg *config.Config) (Validation, error) {
	var v Validation
	b := env.benchmark(cfg)
	plan, err := b.Compile()
	if err != nil {
		return v, Usage.Wrap(err)
	}
	v.Setup, v.Warnings = setupCost(plan, cfg), b.Warnings(plan)
	for _, t := range startedTargets(cfg) {
		v.Warnings = append(v.Warnings, startWarnings(t, cfg.Build != nil)...)
	}
	return v, nil
}

// setupCost says how many logins (setup.vu runs) the benchmark costs.
func setupCost(plan *scenario.Plan, cfg *config.Config) string {
	if plan == nil || !plan.HasSetup(scenario.SetupVU) && !plan.HasSetup(scenario.SetupRun) {
		return ""
	}
	maxBlocks := 0
	if cfg.AB != nil {
		maxBlocks = cfg.AB.MaxBlocks
	}
	var phases []report.PhaseLogins
	for _, ph := range cfg.Load.RunPhases() {
		open, workers := ph.Load.Model == config.ModelOpen, ph.Load.VUs
		if open {
			workers = ph.Load.MaxInflight
		}
		phases = append(phases, report.PhaseLogins{Name: ph.Name, Logins: plan.Logins(open, workers), Workers: workers, Open: open})
	}
	return report.SetupCost(phases, plan.HasSetup(scenario.SetupRun), cfg.Load.Runs, maxBlocks)
}

// startedTargets are the targets tailgate starts from the working tree
// (a side built from a ref has its files only once checked out).
func startedTargets(cfg *config.Config) []config.Target {
	var out []config.Target
	if cfg.Target.Start != nil {
		out = append(out, cfg.Target)
	}
	if ab := cfg.AB; ab != nil && ab.Head.HasTarget() && ab.Head.Start != nil {
		out = append(out, ab.Head.Target)
	}
	return out
}

// startWarnings say when target.start's directory or program (a shell
// string's shell is left alone) is not there: built ones may appear with
// the build command, so they are warnings, not errors.
func startWarnings(t config.Target, built bool) []string {
	var w []string
	s, hint := t.Start, map[bool]string{true: " (the build command may make it)", false: " (and no build command makes it)"}[built]
	if s.Dir != "" {
		if st, err := os.Stat(s.Dir); err != nil || !st.IsDir() {
			w = append(w, fmt.Sprintf("target.start.dir %s is not a directory here", s.Dir))
		}
	}
	if len(s.Command.Args) == 0 {
		return w
	}
	prog := s.Command.Args[0]
	if strings.ContainsRune(prog, filepath.Separator) {
		if !filepath.IsAbs(prog) && s.Dir != "" {
			prog = filepath.Join(s.Dir, prog)
		}
		if _, err := os.Stat(prog); errors.Is(err, os.ErrNotExist) {
			w = append(w, fmt.Sprintf("target.start runs %s, which does not exist yet%s", prog, hint))
		}
	} else if _, err := exec.LookPath(prog); err != nil {
		w = append(w, fmt.Sprintf("target.start runs %s, which is not on the PATH here%s", prog, hint))
	}
	return w
}
