package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// abConfig turns the test benchmark into an A/B one: base and head are two
// services, at most pairs pairs.
func abConfig(t *testing.T, dir, baseURL, headURL string, pairs int) string {
	t.Helper()
	cfg := benchConfig("items", baseURL, 0)
	ab := fmt.Sprintf("ab:\n  base: {url: \"%s\"}\n  head: {url: \"%s\"}\n  min_blocks: %d\n  max_blocks: %d\n", baseURL, headURL, min(4, pairs), pairs)
	cfg = strings.Replace(cfg, "target:\n  url: "+baseURL+"\n", ab+"target:\n  url: "+baseURL+"\n", 1)
	path := filepath.Join(dir, "ab.yml")
	mustWrite(t, path, cfg)
	return path
}

func TestABCommandJudgesBlocks(t *testing.T) {
	t.Parallel()
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 5)
	rep, out := filepath.Join(dir, "r.json"), filepath.Join(dir, "head.json")
	o := tailgate(t, "ab", "-c", cfg, "-q", "--report", rep, "-o", out)
	if o.code != 0 && o.code != 1 {
		t.Fatalf("exit %d, want a verdict (0 or 1):\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// -o writes the head side's runs, one per block, as a result file.
	if f, err := result.ReadFile(out); err != nil || len(f.Runs) < 4 || len(f.Runs) > 5 {
		t.Errorf("-o %s: %v; want the head's 4 or 5 block runs", out, err)
	}
	wantContains(t, "stdout", o.stdout, "blocks of at most 5", "both sides loaded at the same time", "this job")
	wantContains(t, "stderr", o.stderr, "after block 4 of at most 5", "A/B stopped after")
	if _, err := os.Stat(rep); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// Blocks of short windows: the progress and the report in blocks, the
// time split by stage, and a noise file kept for the next job; --design
// and --max-pairs, removed, are usage errors that say what replaced them.
func TestABCommandBlocks(t *testing.T) {
	t.Parallel()
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 3)
	noise := filepath.Join(dir, "noise.json")
	o := tailgate(t, "ab", "-c", cfg, "-q", "--windows", "2", "--noise", noise)
	if o.code != 0 && o.code != 1 {
		t.Fatalf("exit %d, want a verdict (0 or 1):\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	wantContains(t, "stderr", o.stderr, "after block 3 of at most 3", "A/B stopped after 3 blocks")
	wantContains(t, "stdout", o.stdout, "3 blocks of at most 3", "2 windows of 500ms per side: both sides loaded at the same time",
		"where the time went: ", "measured", "Sequential A/B: 3 blocks of 6 window pairs", "noise: this job's own")
	if _, err := os.Stat(noise); err != nil {
		t.Errorf("no noise file kept: %v", err)
	}
	for flag, want := range map[string]string{"--design": "every A/B job follows one rule", "--max-pairs": "use --max-blocks"} {
		o = tailgate(t, "ab", "-c", cfg, flag, "4")
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, flag+" was removed after a release of warnings: "+want)
	}
}

// One rule, phase by phase: a closed phase alternates between the sides
// after its first block (no CPU measured here to show loading both at
// once changes nothing),
// an open one loads both at once, whatever the machine does meanwhile.
// The report says how each phase ran.
func TestABCommandRunsEachPhaseByItsModel(t *testing.T) {
	t.Parallel()
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	open := abConfig(t, dir, base.URL, head.URL, 3)
	withLoad := func(name, load string) string {
		b, err := os.ReadFile(open)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".yml")
		mustWrite(t, path, strings.Replace(string(b), "  model: open\n  rate: 40/s\n", load, 1))
		return path
	}
	closed := withLoad("closed", "  model: closed\n  vus: 2\n")
	mixed := withLoad("mixed", "  phases:\n    - {name: capacity, model: closed, vus: 2}\n    - {name: latency, model: open, rate: 40/s}\n")
	const atOnce, alternating = "both sides loaded at the same time", "alternating between the sides (A B B A"
	for _, c := range []struct {
		name  string
		cfg   string
		notes []string
	}{
		{"mixed", mixed, []string{"phase capacity " + alternating, "phase latency " + atOnce}},
		{"closed", closed, []string{"per side: " + alternating}},
		{"open", open, []string{"per side: " + atOnce}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := tailgate(t, "ab", "-c", c.cfg, "-q", "--windows", "2", "--noise", "off")
			if o.code != 0 && o.code != 1 {
				t.Fatalf("exit %d, want a verdict (0 or 1):\n%s", o.code, o)
			}
			wantContains(t, "stdout", o.stdout, c.notes...)
			if strings.Contains(o.stdout+o.stderr, "cores busy") {
				t.Errorf("the report speaks of how busy the machine was:\n%s", o)
			}
		})
	}
}

func TestActionModeAB(t *testing.T) {
	t.Parallel()
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 5)
	env := actionEnv(t, dir, cfg, filepath.Join(dir, "b.json"))
	env["INPUT_MODE"] = "ab"
	o := tailgateEnv(t, env, "action")
	if o.code != 0 && o.code != 1 {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	outputs, err := os.ReadFile(env["GITHUB_OUTPUT"])
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "outputs", string(outputs), "verdict")
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	wantContains(t, "summary", string(summary), "mode ab")
}

// prRepo is a git repository with two commits of a benchmark of the demo
// service (this test binary, started by tailgate on a free port); its
// build prints the commit it builds. It returns the repository and both
// commits. Its VU thinks 5 ms between requests: only the error rate is
// gated, and a closed loop without a pause kept a core hashing for every
// window of every job (15 s of CPU for one of these tests, 3 s with it).
func prRepo(t *testing.T) (dir, base, head string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	git := func(args ...string) string { t.Helper(); return gitIn(t, dir, args...) }
	cfg := `name: pr
target:
  url: "http://127.0.0.1:{{port}}"
  start: {command: ["` + exe + `", demo-serve, --addr, "127.0.0.1:{{port}}", --work, "2000"]}
  ready: {path: /health, timeout: 20s, interval: 20ms}
build: {command: [git, rev-parse, HEAD]}
ab: {min_blocks: 3, max_blocks: 3}
dataset:
  reset: {request: {method: POST, path: /reset}}
load: {model: closed, vus: 1, think: 5ms, warmup: 0s, duration: 200ms}
scenarios:
  - steps: [{path: /count}]
gate:
  metrics: [request_error_pct]
`
	git("init", "-q", "-b", "main")
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), cfg)
	mustWrite(t, filepath.Join(dir, "version"), "1\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base = git("rev-parse", "HEAD")
	mustWrite(t, filepath.Join(dir, "version"), "2\n")
	git("commit", "-q", "-am", "head")
	return dir, base, git("rev-parse", "HEAD")
}

// gitIn runs git in dir as a test author and returns its output, trimmed.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// tailgateIn runs the test binary as tailgate in dir with env added.
func tailgateIn(t *testing.T, dir string, env []string, args ...string) outcome {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), asTailgateEnv+"=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func wantOneWorktree(t *testing.T, repo, temp string) {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "worktree", "list").Output()
	if err != nil || strings.Count(string(out), "\n") != 1 {
		t.Errorf("worktrees after the job: %v\n%s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(temp, "tailgate-worktree-*")); len(left) > 0 {
		t.Errorf("worktree directories left: %v", left)
	}
}

// On a pull request, mode ab with a config that names no base builds the
// PR's base commit in a worktree and the checkout as the head: nothing but
// the config is needed. tailgate ab --base-ref does the same locally.
func TestABBuildsTheBaseCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts services for every run")
	}
	t.Parallel()
	repo, base, head := prRepo(t)
	t.Run("action", func(t *testing.T) {
		env := actionEnv(t, t.TempDir(), "tailgate.yml", "")
		event := filepath.Join(t.TempDir(), "event.json")
		mustWrite(t, event, `{"number": 7, "pull_request": {"number": 7, "base": {"ref": "main", "sha": "`+base+`"}, "head": {"ref": "pr", "sha": "`+head+`"}}}`)
		env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "pull_request", event
		env["INPUT_MODE"], env["INPUT_COMMENT"], env["INPUT_WORKING_DIRECTORY"] = "ab", "never", "."
		var vars []string
		for k, v := range env {
			vars = append(vars, k+"="+v)
		}
		o := tailgateIn(t, repo, vars, "action")
		wantCode(t, o, 0)
		wantContains(t, "stderr", o.stderr, "[build base] "+base, "[build head] "+head, "base: "+base+" at "+base[:12])
		wantContains(t, "stdout", o.stdout, "3 blocks of at most 3", "base: built from "+base[:12]) // the report names the commit
		wantOneWorktree(t, repo, env["RUNNER_TEMP"])
	})
	t.Run("unknown base-ref", func(t *testing.T) { // the user's input, not the environment
		o := tailgateIn(t, repo, []string{"RUNNER_TEMP=" + t.TempDir()}, "ab", "-q", "--base-ref", "nosuch")
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, "nosuch is not a commit of this clone")
	})
	t.Run("base-ref", func(t *testing.T) {
		temp := t.TempDir()
		o := tailgateIn(t, repo, []string{"RUNNER_TEMP=" + temp}, "ab", "-q", "--base-ref", "HEAD~1")
		wantCode(t, o, 0)
		wantContains(t, "stderr", o.stderr, "[build base] "+base, "[build head] "+head)
		wantOneWorktree(t, repo, temp)
	})
}

// The sequential A/B verdict judges the pairs alone (min_effect, no
// calibrated noise): a corrupt baseline file, which it would not use, does
// not fail tailgate ab or the Action's mode ab (exit 3), and is left as it
// is.
func TestABDoesNotReadTheBaseline(t *testing.T) {
	t.Parallel()
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 4)
	bl := filepath.Join(dir, "b.json")
	const corrupt = `{"schema": 1, "benchmark": "items", "samples": [{"job": "x"`
	mustWrite(t, bl, corrupt)

	o := tailgate(t, "ab", "-c", cfg, "-q", "--baseline", bl)
	if o.code != 0 && o.code != 1 {
		t.Errorf("tailgate ab with a corrupt baseline: exit %d, want a verdict (0 or 1):\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	env := actionEnv(t, dir, cfg, bl)
	env["INPUT_MODE"] = "ab"
	o = tailgateEnv(t, env, "action")
	if o.code != 0 && o.code != 1 {
		t.Errorf("mode ab with a corrupt baseline: exit %d, want a verdict (0 or 1):\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if got := string(mustRead(t, bl)); got != corrupt {
		t.Errorf("the corrupt baseline was changed: %q", got)
	}
}

// tailgate ab --benchmark-from base runs the benchmark file as the base
// ref has it on both builds, as the Action does on a pull request: the
// head's edit of the build command is not run, and the report names it.
// By default (head) the working tree's file runs on both.
func TestABBenchmarkFromTheBaseRef(t *testing.T) {
	if testing.Short() {
		t.Skip("starts services for every run")
	}
	t.Parallel()
	repo, base, _ := prRepo(t)
	cfg := filepath.Join(repo, "tailgate.yml")
	mustWrite(t, cfg, strings.Replace(string(mustRead(t, cfg)), "build: {command: [git, rev-parse, HEAD]}", "build: {command: [echo, the-head-build-command]}", 1))
	git := exec.Command("git", "commit", "-q", "-am", "the head's own build command")
	git.Dir = repo
	git.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}

	// --noise is a cache beside the job, not a key of the benchmark: it
	// holds under the base's benchmark too (issue 45).
	noise := filepath.Join(t.TempDir(), "noise.json")
	o := tailgateIn(t, repo, []string{"RUNNER_TEMP=" + t.TempDir()}, "ab", "-q", "--base-ref", base, "--benchmark-from", "base", "--noise", noise)
	wantCode(t, o, 0)
	wantContains(t, "stderr", o.stderr, "[build base] "+base, "[build head] ")
	if strings.Contains(o.stderr, "the-head-build-command") {
		t.Errorf("the head's build command ran with --benchmark-from base:\n%s", o.stderr)
	}
	wantContains(t, "stdout", o.stdout, "This PR changes the benchmark (changed: build.command)", "with the base commit's build and target",
		"noise: this job's own (the noise file "+noise+" had no earlier job")
	if strings.Contains(o.stdout, "ab.noise") {
		t.Errorf("--noise reads as a change of the benchmark:\n%s", o.stdout)
	}
	if _, err := os.Stat(noise); err != nil {
		t.Errorf("the job's noise was not kept in --noise's file: %v", err)
	}

	o = tailgateIn(t, repo, []string{"RUNNER_TEMP=" + t.TempDir()}, "ab", "-q", "--base-ref", base)
	wantCode(t, o, 0)
	wantContains(t, "stderr", o.stderr, "[build base] the-head-build-command", "[build head] the-head-build-command")

	o = tailgateIn(t, repo, nil, "ab", "-q", "--benchmark-from", "base")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "--benchmark-from base needs the base as a git ref")
}

// --record-base stores whole runs of one side alone: the job measures
// pairs of whole runs, one side at a time, says why, and appends the
// base's runs to the baseline.
func TestABRecordBaseMeasuresWholeRuns(t *testing.T) {
	t.Parallel()
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 4)
	bl := filepath.Join(dir, "b.json")
	o := tailgate(t, "ab", "-c", cfg, "--record-base", "--baseline", bl, "--noise", "off")
	if o.code != 0 && o.code != 1 {
		t.Fatalf("exit %d, want a verdict (0 or 1):\n%s", o.code, o)
	}
	wantContains(t, "stdout", o.stdout, "each a pair of whole runs, one side at a time, as --record-base stores the base's runs in a baseline", "order of runs (A = base, B = head): A B B A")
	if _, err := os.Stat(bl); err != nil {
		t.Errorf("no baseline recorded: %v", err)
	}
}
