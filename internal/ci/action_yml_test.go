package ci

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionFile is the part of action.yml this contract test reads.
type actionFile struct {
	Inputs map[string]struct {
		Default  string `yaml:"default"`
		Required bool   `yaml:"required"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
}

func readActionFile(t *testing.T) actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatalf("read action.yml: %v", err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("parse action.yml: %v", err)
	}
	return a
}

func keys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestActionYMLInputsMatchCode(t *testing.T) {
	t.Parallel()
	a := readActionFile(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite (a docker action cannot reach the host's 127.0.0.1)", a.Runs.Using)
	}
	declared := keys(a.Inputs)
	read := slices.Sorted(slices.Values(InputNames()))
	if !slices.Equal(declared, read) {
		t.Errorf("inputs declared in action.yml %v, read by Inputs %v", declared, read)
	}
	idx := slices.IndexFunc(a.Runs.Steps, func(s actionStep) bool {
		return strings.Contains(s.Run, " action")
	})
	if idx < 0 {
		t.Fatal("action.yml has no step that runs `tailgate action`")
	}
	run := a.Runs.Steps[idx]
	if run.ID != "run" || run.WorkingDirectory != "${{ inputs.working_directory }}" {
		t.Errorf("run step: id %q, working-directory %q", run.ID, run.WorkingDirectory)
	}
	mapped := map[string]bool{}
	for k, v := range run.Env {
		name, ok := strings.CutPrefix(k, "INPUT_")
		if !ok {
			continue
		}
		name = strings.ToLower(name)
		mapped[name] = true
		if _, declared := a.Inputs[name]; !declared {
			t.Errorf("env %s maps an input action.yml does not declare", k)
		}
		if want := "${{ inputs." + name + " }}"; v != want {
			t.Errorf("env %s = %q, want %q", k, v, want)
		}
	}
	validName := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, name := range declared {
		if !validName.MatchString(name) {
			t.Errorf("input %q: use [a-z0-9_] so runner, act and go-githubactions agree on INPUT_ names", name)
		}
		if !mapped[name] {
			t.Errorf("input %s is declared but not mapped to %s in the run step's env", name, InputEnv(name))
		}
	}
}

func TestActionYMLDefaultsMatchCode(t *testing.T) {
	t.Parallel()
	a := readActionFile(t)
	typ := reflect.TypeFor[Inputs]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := f.Tag.Get("input")
		got := a.Inputs[name].Default
		if name == "github_token" {
			if got != "${{ github.token }}" {
				t.Errorf("github_token default = %q, want ${{ github.token }}", got)
			}
			continue
		}
		if want := f.Tag.Get("default"); got != want {
			t.Errorf("input %s: action.yml default %q, code default %q", name, got, want)
		}
	}
}

func TestActionYMLOutputsMatchCode(t *testing.T) {
	t.Parallel()
	a := readActionFile(t)
	var written []string
	typ := reflect.TypeFor[Outputs]()
	for i := range typ.NumField() {
		written = append(written, typ.Field(i).Tag.Get("output"))
	}
	slices.Sort(written)
	if declared := keys(a.Outputs); !slices.Equal(declared, written) {
		t.Errorf("outputs declared %v, written by Outputs %v", declared, written)
	}
	for _, name := range []string{OutputVerdict, OutputRegressions, OutputReportPath, OutputHTMLPath, OutputCommentURL, OutputTargetLog} {
		if !slices.Contains(written, name) {
			t.Errorf("output constant %q is not an Outputs field", name)
		}
	}
	for name, o := range a.Outputs {
		if want := "${{ steps.run.outputs." + name + " }}"; o.Value != want {
			t.Errorf("output %s value = %q, want %q", name, o.Value, want)
		}
	}
}

func TestActionYMLBuildsFromItsOwnSource(t *testing.T) {
	t.Parallel()
	a := readActionFile(t)
	var setup, cache, build bool
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env", s.ID)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			setup = s.With["go-version-file"] == "${{ github.action_path }}/go.mod"
		}
		if strings.HasPrefix(s.Uses, "actions/cache@") {
			cache = strings.Contains(s.With["path"], "steps.gocache.outputs.modcache") &&
				s.With["key"] == "${{ steps.gocache.outputs.key }}"
		}
		if strings.Contains(s.Run, "go build -trimpath") && strings.Contains(s.Run, "./cmd/tailgate") {
			build = s.WorkingDirectory == "${{ github.action_path }}"
		}
	}
	if !setup || !cache || !build {
		t.Errorf("setup-go from the action's go.mod: %v; module cache keyed on its go.sum: %v; go build in the action path: %v",
			setup, cache, build)
	}
}

// Every step that runs an A/B job (mode ab, and mode record's chain)
// restores the noise of earlier jobs before it and keeps its own after
// it, whatever the verdict (issue 45: the chain pooled no earlier noise).
func TestActionYMLNoiseCacheForEveryABJob(t *testing.T) {
	t.Parallel()
	const abJobs = "inputs.mode == 'ab' || (inputs.mode == 'record' && inputs.chain == 'true')"
	var restore, save int
	for _, s := range readActionFile(t).Runs.Steps {
		if s.With["path"] != "~/.cache/tailgate" {
			continue
		}
		switch {
		case strings.HasPrefix(s.Uses, "actions/cache/restore@") && s.If == abJobs:
			restore++
		case strings.HasPrefix(s.Uses, "actions/cache/save@") && s.If == "always() && ("+abJobs+")":
			save++
		default:
			t.Errorf("noise cache step %s runs if %q, want the A/B jobs: %s", s.Uses, s.If, abJobs)
		}
	}
	if restore != 1 || save != 1 {
		t.Errorf("%d restore and %d save steps of the noise cache, want one each", restore, save)
	}
}
