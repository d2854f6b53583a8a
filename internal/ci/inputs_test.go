package ci

import (
	"strings"
	"testing"
)

func TestReadInputsDefaults(t *testing.T) {
	t.Parallel()
	in, err := ReadInputs(mapEnv(nil))
	if err != nil {
		t.Fatalf("ReadInputs with no inputs: %v", err)
	}
	want := Inputs{Config: "tailgate.yml", Mode: ModeCheck, BaselineFrom: BaselineAuto, BenchmarkFrom: BenchmarkBase, Comment: CommentAlways,
		FailOnRegression: true, FailOnInconclusive: false, WorkingDirectory: "."}
	if in != want {
		t.Errorf("ReadInputs = %+v, want %+v", in, want)
	}
}

func TestReadInputsValues(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"INPUT_CONFIG":               " bench/api.yml ",
		"INPUT_MODE":                 "ab",
		"INPUT_BASELINE":             "baselines/api.json",
		"INPUT_BASELINE_FROM":        "branch:tailgate-baselines",
		"INPUT_BENCHMARK_FROM":       "head",
		"INPUT_COMMENT":              "on_regression",
		"INPUT_FAIL_ON_REGRESSION":   "False",
		"INPUT_FAIL_ON_INCONCLUSIVE": "TRUE",
		"INPUT_GITHUB_TOKEN":         "ghs_secret",
		"INPUT_WORKING_DIRECTORY":    "services/api",
	}
	in, err := ReadInputs(mapEnv(env))
	if err != nil {
		t.Fatalf("ReadInputs: %v", err)
	}
	want := Inputs{Config: "bench/api.yml", Mode: ModeAB, Baseline: "baselines/api.json",
		BaselineFrom: "branch:tailgate-baselines", BenchmarkFrom: BenchmarkHead, Comment: CommentOnRegression, FailOnRegression: false,
		FailOnInconclusive: true, GitHubToken: "ghs_secret", WorkingDirectory: "services/api"}
	if in != want {
		t.Errorf("ReadInputs = %+v, want %+v", in, want)
	}
	if b, ok := in.BaselineFrom.Branch(); !ok || b != "tailgate-baselines" {
		t.Errorf("Branch() = %q, %v", b, ok)
	}
}

func TestReadInputsReportsEveryBadValue(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"INPUT_MODE":               "benchmark",
		"INPUT_COMMENT":            "sometimes",
		"INPUT_FAIL_ON_REGRESSION": "yes",
		"INPUT_BASELINE_FROM":      "branch:-upload-pack=evil",
		"INPUT_BENCHMARK_FROM":     "workspace",
	}
	_, err := ReadInputs(mapEnv(env))
	if err == nil {
		t.Fatal("ReadInputs accepted bad values")
	}
	for _, want := range []string{
		`input mode: "benchmark" is not one of check, record, calibrate, ab`,
		`input comment: "sometimes" is not one of always, on_regression, never`,
		`input fail_on_regression (INPUT_FAIL_ON_REGRESSION): "yes" is not a boolean: use true or false`,
		`input baseline_from: "branch:-upload-pack=evil" does not name a branch`,
		`input benchmark_from: "workspace" is not one of base, head`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	for env, want := range map[[2]string]string{
		{"check", "v1.4"}:           `input creep_since: "v1.4" is used only in mode record with chain: true`,
		{"record", "--upload-pack"}: `input creep_since: "--upload-pack" is not a git ref`,
		{"record", "v1 .4"}:         `input creep_since: "v1 .4" is not a git ref`,
	} {
		_, err := ReadInputs(mapEnv(map[string]string{"INPUT_MODE": env[0], "INPUT_CHAIN": "true", "INPUT_CREEP_SINCE": env[1]}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mode %s, creep_since %q: error %v, want %q", env[0], env[1], err, want)
		}
	}
	if in, err := ReadInputs(mapEnv(map[string]string{"INPUT_MODE": "record", "INPUT_CHAIN": "true", "INPUT_CREEP_SINCE": "v1.4"})); err != nil || in.CreepSince != "v1.4" {
		t.Errorf("creep_since v1.4 in mode record with chain: %+v, %v", in, err)
	}
	for _, bad := range []string{"nowhere", "branch:", "branch:a..b"} {
		if _, err := ReadInputs(mapEnv(map[string]string{"INPUT_BASELINE_FROM": bad})); err == nil {
			t.Errorf("baseline_from %q accepted", bad)
		}
	}
}

func TestInputEnvMatchesTheRunner(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"config":             "INPUT_CONFIG",
		"fail_on_regression": "INPUT_FAIL_ON_REGRESSION",
		"fail on":            "INPUT_FAIL_ON",
		"with-hyphen":        "INPUT_WITH-HYPHEN", // kept, as the runner keeps it
	} {
		if got := InputEnv(name); got != want {
			t.Errorf("InputEnv(%q) = %q, want %q", name, got, want)
		}
	}
}
