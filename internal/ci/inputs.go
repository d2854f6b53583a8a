package ci

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

type Mode string

// The modes, one per tailgate command the action can run.
const (
	ModeCheck     Mode = "check"
	ModeRecord    Mode = "record"
	ModeCalibrate Mode = "calibrate"
	ModeAB        Mode = "ab"
)

// CommentPolicy says when the action posts its sticky PR comment.
type CommentPolicy string

const (
	CommentAlways       CommentPolicy = "always"
	CommentOnRegression CommentPolicy = "on_regression"
	CommentNever        CommentPolicy = "never"
)

// BaselineFrom says where the baseline file is read from.
type BaselineFrom string

const (
	BaselineAuto         BaselineFrom = "auto"      // the PR's base commit on pull_request, else the checkout
	BaselineBase         BaselineFrom = "base"      // the PR's base commit; an error outside PRs
	BaselineWorkspace    BaselineFrom = "workspace" // the checkout, which a PR can edit
	BaselineBranchPrefix BaselineFrom = "branch:"   // branch:NAME, a branch only push runs write
)

// Branch returns the branch of a "branch:NAME" source.
func (b BaselineFrom) Branch() (string, bool) {
	name, ok := strings.CutPrefix(string(b), string(BaselineBranchPrefix))
	return name, ok && name != ""
}

// BenchmarkFrom says whose benchmark a pull request's check or A/B job
// runs (how each side is built, started, reset, loaded and measured).
type BenchmarkFrom string

// The benchmark sources: the base commit's file on both sides (a PR cannot
// change how it is measured), or the PR's own, which trusts the PR.
const (
	BenchmarkBase BenchmarkFrom = "base"
	BenchmarkHead BenchmarkFrom = "head"
)

// Inputs holds every input declared in action.yml. The input tag is the
// input's name; the default tag repeats action.yml's default so that runs
// outside the composite (which supplies defaults) behave the same.
type Inputs struct {
	Config             string        `input:"config" default:"tailgate.yml"`
	Mode               Mode          `input:"mode" default:"check"`
	Baseline           string        `input:"baseline"` // empty: the config's baseline path
	BaselineFrom       BaselineFrom  `input:"baseline_from" default:"auto"`
	BenchmarkFrom      BenchmarkFrom `input:"benchmark_from" default:"base"`
	Comment            CommentPolicy `input:"comment" default:"always"`
	FailOnRegression   bool          `input:"fail_on_regression" default:"true"`
	FailOnInconclusive bool          `input:"fail_on_inconclusive" default:"false"`
	GitHubToken        string        `input:"github_token"`
	WorkingDirectory   string        `input:"working_directory" default:"."`
	// TrendURL is where the trend page is published; the comment links it.
	TrendURL string `input:"trend_url"`
	// Chain, in mode record, also judges the pushed commit against its
	// parent in an A/B and appends it to the history as a chain link;
	// CreepSince also judges it against that ref, appended as a span.
	Chain      bool   `input:"chain" default:"false"`
	CreepSince string `input:"creep_since"`
}

// InputEnv is the variable an input is read from: INPUT_ and the name upper-cased
// with spaces as underscores, as the runner and go-githubactions spell it.
func InputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// InputNames lists the input names Inputs declares, in field order.
func InputNames() []string {
	t := reflect.TypeFor[Inputs]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("input"); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// ReadInputs reads and validates every input through go-githubactions with
// the injected getenv. All problems are reported together.
func ReadInputs(getenv func(string) string) (Inputs, error) {
	action := githubactions.New(githubactions.WithGetenv(getenv))
	var in Inputs
	v := reflect.ValueOf(&in).Elem()
	var errs []error
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name := f.Tag.Get("input")
		raw := cmp.Or(action.GetInput(name), f.Tag.Get("default"))
		if v.Field(i).Kind() != reflect.Bool {
			v.Field(i).SetString(raw)
		} else if b, err := parseBool(raw); err != nil {
			errs = append(errs, fmt.Errorf("input %s (%s): %w", name, InputEnv(name), err))
		} else {
			v.Field(i).SetBool(b)
		}
	}
	errs = append(errs, in.validate()...)
	return in, errors.Join(errs...)
}

// parseBool accepts the YAML 1.2 core booleans, as actions/toolkit does.
func parseBool(s string) (bool, error) {
	switch s {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean: use true or false", s)
}

// validate lists each input's problem; nil entries are inputs without one
// (errors.Join drops them).
func (in Inputs) validate() []error {
	return []error{
		oneOf("mode", string(in.Mode), ModeCheck, ModeRecord, ModeCalibrate, ModeAB),
		oneOf("comment", string(in.Comment), CommentAlways, CommentOnRegression, CommentNever),
		in.validateBaselineFrom(),
		oneOf("benchmark_from", string(in.BenchmarkFrom), BenchmarkBase, BenchmarkHead),
		in.validateCreepSince(),
	}
}

// validateCreepSince: creep_since is a span of main's chain, so it needs
// mode record with chain, and a ref git could take (not an option).
func (in Inputs) validateCreepSince() error {
	switch {
	case in.CreepSince == "":
		return nil
	case in.Mode != ModeRecord || !in.Chain:
		return fmt.Errorf("input creep_since: %q is used only in mode record with chain: true (the span joins main's chain); remove it or set both", in.CreepSince)
	case strings.HasPrefix(in.CreepSince, "-") || strings.ContainsFunc(in.CreepSince, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("input creep_since: %q is not a git ref: name a tag or a commit, e.g. v1.4", in.CreepSince)
	}
	return nil
}

func (in Inputs) validateBaselineFrom() error {
	if name, ok := in.BaselineFrom.Branch(); ok && baseline.ValidBranch(name) || slices.Contains([]BaselineFrom{BaselineAuto, BaselineBase, BaselineWorkspace}, in.BaselineFrom) {
		return nil
	}
	if strings.HasPrefix(string(in.BaselineFrom), string(BaselineBranchPrefix)) {
		return fmt.Errorf("input baseline_from: %q does not name a branch: use branch:NAME, e.g. branch:tailgate-baselines", in.BaselineFrom)
	}
	return fmt.Errorf("input baseline_from: %q is not one of auto, base, workspace, branch:NAME", in.BaselineFrom)
}

func oneOf[T ~string](input, got string, allowed ...T) error {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if got == string(a) {
			return nil
		}
		names[i] = string(a)
	}
	return fmt.Errorf("input %s: %q is not one of %s", input, got, strings.Join(names, ", "))
}
