package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// Policy is the gate section a comparison is judged by when it does not
// come from the benchmark file being run: on a pull request, the gate as
// the PR's base commit has it (see TrustBase).
type Policy struct {
	Gate    config.Gate
	Budget  *Budget  // the sequential A/B design to judge by instead of the ab section's own (α: Gate.Alpha)
	Notes   []string // where the policy comes from and whether the PR changes it
	Warning string   // why the policy is the pull request's own after all
	// Runs, when above 0, replaces load.runs: the number of samples
	// decides what the gate can detect, so a PR that cut it could make
	// its own check too weak to fail.
	Runs int
	// PassEnv, when limitsEnv is set, are the only credentials the
	// children and {{env}} may get: the PR's pass_env without the names
	// the base commit's does not list, so that a PR cannot hand the job's
	// token to its own service.
	PassEnv   []string
	limitsEnv bool
	// Benchmark, when set, is run instead of the one given: the base
	// commit's (Commit), on both trees.
	Benchmark *config.Config
	Commit    string
	procedure []string // the keys the pull request changes, for the error of a head that cannot run the base's
	where     string
}

// benchmark is a copy of cfg as the policy lets it run: the policy's
// number of runs and no credential the trusted config does not pass on.
func (p *Policy) benchmark(cfg *config.Config) *config.Config {
	if p != nil && p.Benchmark != nil {
		c := *p.Benchmark
		return &c
	}
	if p == nil || cfg == nil {
		return cfg
	}
	c := *cfg
	if p.Runs > 0 {
		c.Load.Runs = p.Runs
	}
	if p.limitsEnv {
		c.PassEnv = slices.DeleteFunc(slices.Clone(cfg.PassEnv), func(name string) bool {
			return target.IsCredential(name) && !slices.Contains(p.PassEnv, name)
		})
	}
	return &c
}

func (p *Policy) gate(cfg *config.Config) (config.Gate, bool) {
	switch {
	case p != nil:
		return p.Gate, true
	case cfg != nil:
		return gateOf(cfg), true
	}
	return config.Gate{}, false
}

// gateOf is cfg's gate section with its metrics filled: the one place
// that owns the default (gate.metrics as given, else gate's defaults and
// the targets' own); none without a config.
func gateOf(cfg *config.Config) config.Gate {
	if cfg == nil {
		return config.Gate{}
	}
	g := cfg.Gate
	g.Metrics = cfg.GatedMetrics(gate.DefaultMetrics())
	return g
}

// Budget is the part of the ab section that is the gate's policy: the
// sequential design's first look and budgets, and whether a figure one
// side lost may pass. A pull request that could shrink the budgets, or
// allow lost figures, could end its own A/B job undecided, and
// inconclusive passes.
type Budget struct {
	MinBlocks    int             `yaml:"min_blocks"`
	MaxBlocks    int             `yaml:"max_blocks"`
	MaxTime      config.Duration `yaml:"max_time"`
	AllowMissing bool            `yaml:"allow_missing"`
}

func budgetOf(cfg *config.Config) Budget {
	ab := cmp.Or(cfg.AB, config.DefaultAB())
	return Budget{MinBlocks: ab.MinBlocks, MaxBlocks: ab.MaxBlocks, MaxTime: ab.MaxTime, AllowMissing: ab.AllowMissing}
}

func (p *Policy) notes() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.Notes)
}

// BaseFile is the benchmark file as a pull request's base commit has it.
type BaseFile struct {
	Data        []byte
	Found       bool   // false: the base commit has no such file (the PR adds tailgate)
	Where, Path string // Where names it in the report ("tailgate.yml at the PR's base commit 3a9c5e7f1b2d")
	// Read reads the files it names (feed.file, ...) as the base commit
	// has them; nil reads the working tree's.
	Read config.ReadFunc
}

// TrustBase is the one trust path (the Action on a pull request, tailgate
// ab --benchmark-from base): head's benchmark file as the base commit ref
// (else ab.base.ref) has it gives the gate's policy (gate, A/B budget,
// load.runs, pass_env) and with whole the benchmark run on both trees,
// each key the PR changes named; without a base file that loads, the
// PR's own with a warning. name is how the report names the commit.
func TrustBase(ctx context.Context, head *config.Config, ref, name string, whole bool, git baseline.Git) (*Policy, error) {
	if ref == "" && head.AB != nil {
		ref = head.AB.Base.Ref
	}
	if ref == "" {
		return nil, Usage.Errorf("--benchmark-from base needs the base as a git ref: --base-ref REF (or ab.base.ref)")
	}
	sha := ref
	if !fullSHA.MatchString(ref) {
		var err error
		if sha, err = baseline.ResolveCommit(ctx, ".", ref, git); err != nil {
			return nil, Usage.Wrap(err)
		}
	}
	file, err := inCheckout(head.Path)
	if err != nil {
		return nil, Usage.Wrap(err)
	}
	data, err := baseline.ReadFileAtCommit(ctx, ".", sha, file, "benchmark file", git)
	if err != nil && !errors.Is(err, baseline.ErrNotAtCommit) {
		return nil, Runtime.Wrap(fmt.Errorf("reading the benchmark file at %s: %w", ref, err))
	}
	where := fmt.Sprintf("%s at %s %.12s", file, cmp.Or(name, ref), sha)
	p := trustedPolicy(head, BaseFile{Data: data, Found: err == nil, Where: where, Path: file, Read: baseline.FilesAtCommit(ctx, ".", sha, git)}, whole)
	p.Commit = sha
	return p, nil
}

var fullSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// inCheckout is path relative to the working directory (the checkout),
// as git reads it at a commit.
func inCheckout(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return path, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("the config %s is outside the working directory: the gate's policy is read from it at the base commit", path)
	}
	return rel, nil
}

func trustedPolicy(head *config.Config, base BaseFile, whole bool) *Policy {
	t := report.TrustedPolicy{Where: base.Where, HeadPath: head.Path, Whole: whole}
	if !base.Found {
		return ownPolicy(head, t.OwnReason(nil))
	}
	trusted, err := config.ParseAt(t.Where, base.Path, base.Data, base.Read)
	if err != nil {
		var cerr *config.Error
		if errors.As(err, &cerr) && len(cerr.Problems) > 0 {
			err = fmt.Errorf("%s (and %d more)", cerr.Problems[0], len(cerr.Problems)-1)
		}
		return ownPolicy(head, t.OwnReason(err))
	}
	budget := budgetOf(trusted)
	p := &Policy{Gate: gateOf(trusted), Budget: &budget, Runs: trusted.Load.Runs, PassEnv: slices.Clone(trusted.PassEnv), limitsEnv: true, where: t.Where}
	t.Changed = append(fieldChanges("gate", trusted.Gate, head.Gate), fieldChanges("ab", budget, budgetOf(head))...)
	if head.Load.Runs != trusted.Load.Runs {
		t.Changed = append(t.Changed, "load.runs")
	}
	if added := slices.DeleteFunc(slices.Clone(head.PassEnv), func(name string) bool {
		return !target.IsCredential(name) || slices.Contains(trusted.PassEnv, name)
	}); len(added) > 0 {
		t.Changed = append(t.Changed, "pass_env (withheld: "+strings.Join(added, ", ")+")")
	}
	switch {
	case whole:
		p.Benchmark, p.procedure = trusted, procedureChanges(trusted, head)
		t.Procedure = p.procedure
	case head.DefinitionHash() != trusted.DefinitionHash():
		t.Definition = definitionChanges(trusted, head)
	}
	p.Notes = t.Notes()
	return p
}

// headFailure is err, a failure of the head side run with the base
// commit's benchmark, with what to do when the pull request changes it.
func (p *Policy) headFailure(err error) error {
	if p == nil || p.Benchmark == nil || len(p.procedure) == 0 || err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w\nThe head was built and measured with the benchmark of %s, and this pull request changes it (%s). "+
		"If the head cannot run the base's procedure, set benchmark_from: head (the action's input; tailgate ab --benchmark-from head): "+
		"the job then runs the pull request's own benchmark on both sides, which trusts the pull request (docs/github-action.md, \"benchmark_from\")", err, p.where, strings.Join(p.procedure, ", "))
}

func (p *Policy) fromBase() bool { return p != nil && p.Benchmark != nil }

// procedureChanges names the keys of the benchmark that head changes
// from trusted, beyond the gate's policy (gate:, the A/B budget,
// load.runs and pass_env, which the policy's own note names).
func procedureChanges(trusted, head *config.Config) []string {
	policy := []string{"gate", "pass_env", "load.runs", "ab.min_blocks", "ab.max_blocks", "ab.max_time"}
	var out []string
	for _, key := range keyChanges("", reflect.ValueOf(*trusted), reflect.ValueOf(*head), 0) {
		if !slices.ContainsFunc(policy, func(p string) bool { return key == p || strings.HasPrefix(key, p+".") }) {
			out = append(out, key)
		}
	}
	if a, b := trusted.Feed, head.Feed; a != nil && b != nil && a.Content != b.Content && !slices.Contains(out, "feed.file") {
		out = append(out, "feed.file (its rows)")
	}
	return out
}

// keyChanges lists the keys whose values differ between a and b: a
// section with keys of its own is looked into, down to three levels
// (ab.base.start), anything else is named whole (scenarios, load.rate).
func keyChanges(prefix string, a, b reflect.Value, depth int) []string {
	if a.Kind() == reflect.Pointer && b.Kind() == reflect.Pointer && !a.IsNil() && !b.IsNil() {
		a, b = a.Elem(), b.Elem()
	}
	if sameValue(a, b) {
		return nil
	}
	if a.Kind() != reflect.Struct || depth > 3 || !hasKeys(a.Type()) {
		return []string{prefix}
	}
	var out []string
	for i := range a.NumField() {
		name, opts, _ := strings.Cut(a.Type().Field(i).Tag.Get("yaml"), ",")
		if name == "-" || !a.Type().Field(i).IsExported() {
			continue
		}
		key, level := prefix, depth // an inline section's keys are its parent's
		if opts != "inline" {
			key, level = strings.TrimPrefix(prefix+"."+name, "."), depth+1
		}
		out = append(out, keyChanges(key, a.Field(i), b.Field(i), level)...)
	}
	if len(out) == 0 { // a difference only in what no key holds (a file's content)
		return []string{prefix}
	}
	return out
}

// hasKeys reports whether a struct type is a section of the file: one
// with yaml keys, not a value written as a scalar (a command, a rate).
func hasKeys(t reflect.Type) bool {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			return true
		}
	}
	return false
}

// definitionChanges names the keys of the benchmark definition
// (config.Definition) that differ between a and b, load key by key; "the
// definition" when the difference lies where no key shows it.
func definitionChanges(a, b *config.Config) []string {
	da, db := a.Definition(), b.Definition()
	changed := fieldChanges("load", da.Load, db.Load)
	da.Load, db.Load = config.Load{}, config.Load{}
	if changed = append(changed, fieldChanges("", da, db)...); len(changed) == 0 {
		return []string{"the definition"}
	}
	return changed
}

func ownPolicy(head *config.Config, why string) *Policy {
	return &Policy{Gate: gateOf(head), Notes: []string{"The " + why + "."}, Warning: why}
}

// fieldChanges lists the keys of a config section (a struct with yaml
// tags) that differ between a and b, as section.KEY.
func fieldChanges(section string, a, b any) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var changed []string
	for i := range va.NumField() {
		if !sameValue(va.Field(i), vb.Field(i)) {
			name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("yaml"), ",")
			changed = append(changed, strings.TrimPrefix(section+"."+name, "."))
		}
	}
	return changed
}

// sameValue is reflect.DeepEqual with an empty map or list equal to none.
func sameValue(a, b reflect.Value) bool {
	if k := a.Kind(); (k == reflect.Map || k == reflect.Slice) && a.Len() == 0 && b.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// sideFailure is err of an A/B job with headFailure's advice when it is
// the head side's.
func (p *Policy) sideFailure(err error) error {
	var se *runner.SideError
	if errors.As(err, &se) && se.Side == runner.Head.String() {
		return p.headFailure(err)
	}
	return err
}
