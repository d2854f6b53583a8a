package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// baselinePath is where a benchmark's baseline lives unless a flag says
// otherwise: the config's gate.baseline, else baselines/<name>.json.
func baselinePath(flag string, cfg *config.Config, benchmark string) string {
	switch {
	case flag != "":
		return flag
	case cfg != nil && cfg.Gate.Baseline != "":
		return cfg.Gate.Baseline
	default:
		return "baselines/" + benchmark + ".json"
	}
}

// readBaseline reads the baseline; a missing one is not an error (nil),
// an unreadable one is a runtime failure that leaves the file as it is.
func readBaseline(path string) (*baseline.File, error) {
	bl, err := baseline.Read(path)
	if errors.Is(err, baseline.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, withCode(ExitRuntime, err)
	}
	return bl, nil
}

// policyFor builds the gate policy from the config's gate section (when
// there is a config) and the noise calibrated into the baseline.
func policyFor(cfg *config.Config, bl *baseline.File) gate.Policy {
	var p gate.Policy
	if cfg != nil {
		p.Alpha = cfg.Gate.Alpha
		p.Metrics = cfg.Gate.Metrics
		p.Floors = cfg.Gate.Floors
		p.MinEffect = cfg.Gate.MinEffect
	}
	if bl != nil {
		p.BaselineJobs = bl.Jobs()
		if bl.Calibration != nil {
			p.Noise = bl.Calibration.Noise
		}
	}
	return p
}

// judgeAgainstBaseline judges head runs against a stored baseline (nil when
// there is none yet).
func judgeAgainstBaseline(head *result.File, bl *baseline.File, p gate.Policy) gate.Verdict {
	if bl == nil {
		p.Context.NoBaseline = true
		return gate.Judge(nil, head.Runs, p)
	}
	return judgeRuns(&result.File{DefinitionHash: bl.DefinitionHash, Env: bl.Env, Runs: bl.Runs()}, head, p)
}

// judgeRuns judges head against base, telling the gate when the two were
// measured by different benchmark definitions or on different machines.
func judgeRuns(base, head *result.File, p gate.Policy) gate.Verdict {
	if base.DefinitionHash != "" && head.DefinitionHash != "" && base.DefinitionHash != head.DefinitionHash {
		p.Context.DefinitionChanged = true
	}
	if a, b := base.Env.Fingerprint(), head.Env.Fingerprint(); base.Env.Cores != 0 && head.Env.Cores != 0 && a != b {
		p.Context.EnvDiffers = true
		p.Context.EnvDiff = fmt.Sprintf("%s → %s", a, b)
	}
	return gate.Judge(base.Runs, head.Runs, p)
}

// verdictExit maps a verdict to the exit code of DESIGN.md §3.
func verdictExit(v gate.Verdict, failOnInconclusive bool) error {
	switch {
	case v.Outcome == gate.Regression:
		return &exitError{ExitRegression, fmt.Errorf("regression in %s", strings.Join(v.Regressions, ", "))}
	case v.Outcome == gate.Inconclusive && failOnInconclusive:
		return &exitError{ExitRegression, errors.New("inconclusive, and --fail-on-inconclusive is set")}
	}
	return nil
}
