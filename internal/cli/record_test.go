package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

func readBaselineFile(t *testing.T, path string) *baseline.File {
	t.Helper()
	bl, err := baseline.Read(path)
	if err != nil {
		t.Fatalf("reading the baseline: %v", err)
	}
	return bl
}

func TestBaselineRecordAccumulates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := writeResult(t, dir, "r.json", synthResult(5, 1, synthHash))
	bl := filepath.Join(dir, "b.json")

	o := tailgate(t, "baseline", "record", "--result", res, "--baseline", bl, "--job", "job-1", "--commit", "abc123")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "recorded 5 runs in "+bl, "5 samples from 1 job,")

	env := environ{"GITHUB_SHA": "def456", "GITHUB_REF": "refs/heads/main", "GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "2"}
	o = tailgateEnv(t, env, "baseline", "record", "--result", res, "--baseline", bl)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "10 samples from 2 jobs")

	f := readBaselineFile(t, bl)
	if len(f.Samples) != 10 || f.Jobs() != 2 {
		t.Fatalf("%d samples from %d jobs, want 10 from 2", len(f.Samples), f.Jobs())
	}
	if f.Benchmark != "synthetic" || f.DefinitionHash != synthHash || f.Window != baseline.DefaultWindow {
		t.Errorf("benchmark %q, hash %q, window %d", f.Benchmark, f.DefinitionHash, f.Window)
	}
	first, last := f.Samples[0], f.Samples[9]
	if first.Job != "job-1" || first.Commit != "abc123" {
		t.Errorf("first sample from job %q commit %q, want the flags' job-1, abc123", first.Job, first.Commit)
	}
	if last.Job != "77-2" || last.Commit != "def456" || last.Ref != "refs/heads/main" {
		t.Errorf("last sample job %q commit %q ref %q, want the GITHUB_* values 77-2, def456, refs/heads/main", last.Job, last.Commit, last.Ref)
	}
	if got := f.Samples[0].Metrics["iterations_per_s"]; got != synthRun(0, 1).Metrics["iterations_per_s"] {
		t.Errorf("sample 0 iterations_per_s = %v, want the run's %v", got, synthRun(0, 1).Metrics["iterations_per_s"])
	}
}

// gate.window of the -c config bounds the samples kept: the newest stay.
func TestBaselineRecordHonoursWindow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "synthetic", "http://127.0.0.1:1", 7)
	bl := filepath.Join(dir, "b.json")
	for job, scale := range []float64{1, 1.5} {
		res := writeResult(t, dir, "r.json", synthResult(5, scale, synthHash))
		o := tailgate(t, "baseline", "record", "-c", cfg, "--result", res, "--baseline", bl, "--job", "job-"+string(rune('a'+job)))
		wantCode(t, o, 0)
	}
	f := readBaselineFile(t, bl)
	if f.Window != 7 || len(f.Samples) != 7 {
		t.Fatalf("window %d with %d samples, want 7 and 7", f.Window, len(f.Samples))
	}
	if f.Samples[0].Job != "job-a" || f.Samples[2].Job != "job-b" || f.Samples[6].Job != "job-b" {
		t.Errorf("kept jobs %q … %q: the window should keep the last 2 of job-a and all 5 of job-b", f.Samples[0].Job, f.Samples[6].Job)
	}
}

// A changed definition drops the old samples and says so.
func TestBaselineRecordNewDefinitionReplacesSamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bl := writeBaseline(t, dir, "b.json", synthBaseline(2, 5, synthHash))
	res := writeResult(t, dir, "r.json", synthResult(3, 1, "sha256:definition-2"))

	o := tailgate(t, "baseline", "record", "--result", res, "--baseline", bl)
	wantCode(t, o, 0)
	wantContains(t, "stderr", o.stderr, "definition changed", "10 old samples")
	f := readBaselineFile(t, bl)
	if len(f.Samples) != 3 || f.DefinitionHash != "sha256:definition-2" {
		t.Errorf("%d samples of %q, want 3 of the new definition", len(f.Samples), f.DefinitionHash)
	}
}

func TestBaselineRecordCorruptBaselineIsLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := writeResult(t, dir, "r.json", synthResult(5, 1, synthHash))
	bl := filepath.Join(dir, "b.json")
	corrupt := `{"schema": 1, "benchmark": "synthetic", "samples": [{"job": "x", "metrics": {"iterations_per_s": 1`
	mustWrite(t, bl, corrupt)

	o := tailgate(t, "baseline", "record", "--result", res, "--baseline", bl)
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, bl)
	if got := string(mustRead(t, bl)); got != corrupt {
		t.Errorf("the corrupt baseline was rewritten:\n%s", got)
	}
}

// record runs the benchmark itself when no --result is given.
func TestBaselineRecordRunsBenchmark(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	bl := filepath.Join(dir, "b.json")

	o := tailgate(t, "baseline", "record", "-q", "-c", cfg, "--baseline", bl)
	wantCode(t, o, 0)
	f := readBaselineFile(t, bl)
	if len(f.Samples) != 2 || f.Benchmark != "items" || f.DefinitionHash == "" {
		t.Errorf("%d samples of %q (hash %q), want 2 samples of items", len(f.Samples), f.Benchmark, f.DefinitionHash)
	}
	if f.Jobs() != 1 || f.Samples[0].Job == "" {
		t.Errorf("%d jobs, first job %q; want one job with a local id", f.Jobs(), f.Samples[0].Job)
	}
}

// Outside Actions, baseline record takes the commit and the ref from the
// checkout's git and says so (and that the tree had uncommitted changes
// when it had); outside a git checkout it says none was
// recorded. The history line's count reads "(1 job)".
func TestBaselineRecordTakesCommitFromGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q", "-b", "main")
	mustWrite(t, filepath.Join(repo, "app.txt"), "v1\n")
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-q", "-m", "v1")
	sha := gitRun(t, repo, "rev-parse", "HEAD")
	res := writeResult(t, repo, "r.json", synthResult(5, 1, synthHash))
	noCI := []string{"GITHUB_SHA=", "GITHUB_REF=", "GITHUB_RUN_ID=", "GITHUB_ACTIONS="}
	mustWrite(t, filepath.Join(repo, "app.txt"), "v1, edited\n") // measured, not committed

	o := tailgateIn(t, repo, noCI, "baseline", "record", "--result", res, "--baseline", "b.json")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "from git: commit "+sha+", with uncommitted changes", "ref refs/heads/main", "(1 job)")
	h, err := baseline.ReadHistory(filepath.Join(repo, "b.history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if j := h.Jobs[0]; j.Commit != sha || j.Ref != "refs/heads/main" {
		t.Errorf("history line commit %q ref %q, want %s refs/heads/main", j.Commit, j.Ref, sha)
	}

	// --commit and --ref win over git, and nothing is said.
	o = tailgateIn(t, repo, noCI, "baseline", "record", "--result", res, "--baseline", "b.json", "--commit", "abc1234", "--ref", "refs/tags/v1", "--job", "j2")
	wantCode(t, o, 0)
	if strings.Contains(o.stdout, "from git") || !strings.Contains(o.stdout, "(2 jobs)") {
		t.Errorf("with --commit and --ref: %s", o.stdout)
	}

	plain := t.TempDir()
	o = tailgateIn(t, plain, append(noCI, "GIT_CEILING_DIRECTORIES="+filepath.Dir(plain)), "baseline", "record", "--result", res, "--baseline", "b.json")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "no commit recorded: the working directory is not a git checkout")
}

// gitRun runs git in repo with a fixed author and no user configuration.
func gitRun(t *testing.T, repo string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
