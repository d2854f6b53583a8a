package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bypass of issue 11, replayed as an attacker would: a pull request
// that edits `gate:` in its own tailgate.yml (a fresh baseline path, or
// looser floors, min_effect and alpha) on a service that got 20× slower.
// The step runs as the runner runs it (the built binary, action.yml's env
// mapping, a pull_request payload whose base is the commit before, a fake
// GitHub API passed in GITHUB_API_URL); the gate's policy comes from the
// base commit, so both PRs still fail, and the report names the policy's
// source. Each control run with baseline_from: workspace shows that the
// PR's own policy would have passed it.
func TestActionGatePolicyFromTheBaseCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	bin := buildTailgate(t)
	target := newE2ETarget(t)
	repo, baseSHA := newE2ERepo(t, bin, target.url())
	event := writeEvent(t, "pull_request.json", func(ev map[string]any) {
		ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = baseSHA
	})
	fake := newE2EGitHub(t)
	target.regress()
	source := "tailgate.yml at the PR's base commit " + baseSHA[:12]

	for _, pr := range []struct {
		name    string
		edit    func(cfg string) string // the PR's edit of gate:, the file's last section
		changed string
	}{
		{"fresh baseline", func(cfg string) string { return cfg + "  baseline: baselines/fresh.json\n" }, "gate.baseline"},
		{"looser gate", func(cfg string) string {
			cfg = strings.Replace(cfg, "    iterations_per_s: 30\n    latency_p95_ms: 600\n    dropped_pct: 25\n", "    iterations_per_s: 95\n    latency_p95_ms: 50000\n    dropped_pct: 100\n", 1)
			return cfg + "  min_effect: {iterations_per_s: 99, latency_p95_ms: 100000, request_error_pct: 100, lifecycle_success_pct: 100, dropped_pct: 100, cpu_ms_per_iteration: 10000}\n  alpha: 0.0001\n"
		}, "gate.alpha, gate.floors, gate.min_effect"},
		// One head run: the gate sees less (a wider prediction interval),
		// and load.runs is not part of the definition that would make the
		// check inconclusive. The base commit's two runs are measured.
		{"fewer runs", func(cfg string) string { return strings.Replace(cfg, "  runs: 2\n", "  runs: 1\n", 1) }, "load.runs"},
	} {
		t.Run(pr.name, func(t *testing.T) {
			prCommit(t, repo, baseSHA, pr.edit)
			res := runAction(t, bin, repo, fake, event, map[string]string{"comment": "never"})
			res.wantExit(t, ExitRegression)
			res.wantOutputs(t, "regression", "")
			rep := readReportOutput(t, res)
			notes := strings.Join(rep.Notes, "\n")
			for _, want := range []string{"from " + source, "This PR changes the gate's policy; it applies after merge", "changed: " + pr.changed} {
				if !strings.Contains(notes, want) {
					t.Errorf("the report's notes lack %q:\n%s", want, notes)
				}
			}
			if !strings.Contains(rep.BaselineSource, "baselines/e2e.json at the PR's base commit") {
				t.Errorf("baseline source %q, want the base commit's baselines/e2e.json", rep.BaselineSource)
			}
			// The Markdown puts the SHA, which GitHub would link, whole in a
			// code span, so that it copies into git show.
			if shown := strings.ReplaceAll(res.summary, "`", ""); !strings.Contains(shown, source) || !strings.Contains(shown, "it applies after merge") ||
				!strings.Contains(res.summary, "`"+baseSHA[:12]+"`") {
				t.Errorf("the job summary does not name the policy's source:\n%s", res.summary)
			}

			if rep.Verdict.HeadRuns != 2 {
				t.Errorf("%d head runs, want the base commit's load.runs (2)", rep.Verdict.HeadRuns)
			}
			if pr.name == "fewer runs" { // a 20× slowdown shows in one run too: no control
				return
			}
			control := runAction(t, bin, repo, fake, event, map[string]string{"comment": "never", "baseline_from": "workspace"})
			control.wantExit(t, ExitPass)
		})
	}

	// A PR that passes the job's token on to its own service (pass_env)
	// and sends it in a header: the benchmark is the base commit's, so the
	// PR's scenario never runs; with benchmark_from: head it does, but the
	// credentials are still the base commit's, so it may not read the
	// token. The service never sees it.
	t.Run("token to the service", func(t *testing.T) {
		target.heal()
		defer target.regress()
		prCommit(t, repo, baseSHA, func(cfg string) string {
			cfg = strings.Replace(cfg, "        status: 200\n", "        status: 200\n        headers: {X-Ci: '{{env \"INPUT_GITHUB_TOKEN\"}}'}\n", 1)
			return cfg + "pass_env: [INPUT_GITHUB_TOKEN]\n"
		})
		res := runAction(t, bin, repo, fake, event, map[string]string{"comment": "never"})
		res.wantExit(t, ExitPass)
		notes := strings.Join(readReportOutput(t, res).Notes, "\n")
		for _, want := range []string{"pass_env (withheld: INPUT_GITHUB_TOKEN)", "This PR changes the benchmark (changed: scenarios)"} {
			if !strings.Contains(notes, want) {
				t.Errorf("the report's notes lack %q:\n%s", want, notes)
			}
		}
		res = runAction(t, bin, repo, fake, event, map[string]string{"comment": "never", "benchmark_from": "head"})
		res.wantExit(t, ExitUsage)
		if !strings.Contains(res.stderr, `{{env "INPUT_GITHUB_TOKEN"}}`) {
			t.Errorf("the step does not say why it refused the benchmark:\n%s", res.stderr)
		}
		if n := target.leaks.Load(); n != 0 {
			t.Errorf("the service received the token in %d requests", n)
		}
		control := runAction(t, bin, repo, fake, event, map[string]string{"comment": "never", "baseline_from": "workspace"})
		control.wantExit(t, ExitPass)
		if target.leaks.Load() == 0 {
			t.Error("with the PR's own policy the token did not reach the service: the test does not show the attack")
		}
	})

	// A PR that adds tailgate.yml: its own policy, and a warning saying so.
	t.Run("no benchmark file at the base", func(t *testing.T) {
		gitIn(t, repo, "rm", "-q", "--cached", "tailgate.yml")
		gitIn(t, repo, "commit", "-q", "-m", "no tailgate.yml")
		empty := gitIn(t, repo, "rev-parse", "HEAD")
		gitIn(t, repo, "add", "tailgate.yml")
		gitIn(t, repo, "commit", "-q", "-m", "add tailgate.yml")
		ev := writeEvent(t, "pull_request.json", func(ev map[string]any) {
			ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = empty
		})
		res := runAction(t, bin, repo, fake, ev, map[string]string{"comment": "never"})
		if res.code != ExitPass && res.code != ExitRegression {
			t.Fatalf("exit %d, want a verdict:\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		want := "tailgate.yml at the PR's base commit " + empty[:12] + " does not exist, so the gate's policy and the benchmark are this pull request's own"
		if n := strings.Count(res.stdout, "::warning title=gate policy::"+want); n != 1 {
			t.Errorf("%d warnings %q, want 1:\n%s", n, want, res.stdout)
		}
		if !strings.Contains(strings.ReplaceAll(res.summary, "`", ""), want) {
			t.Errorf("the job summary does not say the policy is the PR's own:\n%s", res.summary)
		}
	})
}

// prCommit makes the working tree the base commit's with the benchmark
// file edited, and commits it.
func prCommit(t *testing.T, repo, base string, edit func(string) string) {
	t.Helper()
	gitIn(t, repo, "checkout", "-q", base, "--", "tailgate.yml", "baselines/e2e.json")
	cfg := filepath.Join(repo, "tailgate.yml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "gate:\n  floors:\n    iterations_per_s: 30\n    latency_p95_ms: 600\n    dropped_pct: 25\n") {
		t.Fatalf("the e2e benchmark no longer ends with the gate: section this test edits:\n%s", data)
	}
	edited := edit(string(data))
	if edited == string(data) {
		t.Fatal("the edit changed nothing")
	}
	writeFile(t, cfg, edited)
	gitIn(t, repo, "commit", "-q", "-am", "faster orders (and a gate edit)")
}

func gitIn(t *testing.T, repo string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.invalid"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
