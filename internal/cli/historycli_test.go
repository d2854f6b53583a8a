package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

// historyBenchmark is treeBenchmark's service (@SVC@, each side's speed
// from its tree's service.conf) with the base named in the file, as a
// repository that also runs A/B on pull requests has it: ab.base.ref
// release, a tag of the first commit.
const historyBenchmark = `name: chain
seed: 1
target:
  url: "http://127.0.0.1:{{port}}"
  start:
    command: exec "@SVC@" tree-service --addr "127.0.0.1:{{port}}" --delay "$(cat out/delay)"
  ready: {path: /health, timeout: 20s, interval: 20ms}
build:
  command: mkdir -p out && cp service.conf out/delay
ab: {base: {ref: release}, min_blocks: 3, max_blocks: 3, restart: never}
load: {model: open, rate: 50/s, max_inflight: 32, warmup: 0s, duration: 400ms, request_timeout: 5s}
scenarios:
  - steps: [{path: "/orders/{{randInt 1 100}}", status: 200}]
gate:
  metrics: [latency_p50_ms]
  min_effect: {latency_p50_ms: 100}
`

// The docs' history CLI form (docs/history.md), replayed push by push on a
// repository whose benchmark file names ab.base.ref: `tailgate ab
// --base-ref HEAD~1 --history FILE` at each commit of main. Commit 2 of 3
// makes the service 20 times slower. Each link's parent is the commit the
// job built (HEAD~1, which replaced the file's release: had the file's ref
// been built, commit 3 would be judged against the fast release and named
// too), and tailgate history names commit 2 alone as the culprit (issue 45).
func TestHistoryCLIReplayNamesTheSlowingCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts services for every commit")
	}
	t.Parallel()
	repo, hist := t.TempDir(), filepath.Join(t.TempDir(), "main.history.jsonl")
	mustWrite(t, filepath.Join(repo, "tailgate.yml"), strings.ReplaceAll(historyBenchmark, "@SVC@", os.Args[0]))
	mustWrite(t, filepath.Join(repo, ".gitignore"), "out/\n")
	gitIn(t, repo, "init", "-q", "-b", "main")
	env := []string{"RUNNER_TEMP=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(), "GITHUB_SHA=", "GITHUB_REF=", "GITHUB_RUN_ID=", "GITHUB_ACTIONS="}
	delays := []string{"20ms", "20ms", "400ms", "400ms"} // commit 2 slows it
	var commits []string
	for i, d := range delays {
		mustWrite(t, filepath.Join(repo, "service.conf"), d+"\n")
		mustWrite(t, filepath.Join(repo, "CHANGES"), strings.Repeat("a commit\n", i+1))
		gitIn(t, repo, "add", "-A")
		gitIn(t, repo, "commit", "-q", "-m", "commit "+d)
		commits = append(commits, gitIn(t, repo, "rev-parse", "HEAD"))
		if i == 0 {
			gitIn(t, repo, "tag", "release")
			continue
		}
		o := tailgateIn(t, repo, env, "ab", "-q", "--base-ref", "HEAD~1", "--history", hist, "--job", "push-"+commits[i][:7])
		want := 0
		if i == 2 {
			want = 1
		}
		wantCode(t, o, want)
		wantContains(t, "stdout", o.stdout, "appended the A/B of "+commits[i][:12]+" against its parent "+commits[i-1][:12],
			`ab.base.ref "release" of the benchmark file is not used: the base is --base-ref HEAD~1`, "base: built from HEAD~1 at "+commits[i-1][:12])
	}

	h, err := baseline.ReadHistory(hist)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != len(delays)-1 {
		t.Fatalf("%d lines, want a link per push after the first", len(h.Jobs))
	}
	for i, j := range h.Jobs {
		if j.AB == nil || j.Commit != commits[i+1] || j.AB.Parent != commits[i] {
			t.Errorf("link %d: commit %s, ab %+v; want %s against its parent %s", i, j.Commit, j.AB, commits[i+1], commits[i])
		}
	}
	o := tailgateIn(t, repo, env, "history", "--history", hist)
	if o.code != 0 && o.code != 1 {
		t.Fatalf("tailgate history: %s", o)
	}
	var named []string
	for _, line := range strings.Split(o.stdout, "\n") {
		if strings.Contains(line, "regressed by ") {
			named = append(named, line)
		}
	}
	if len(named) != 1 || !strings.Contains(named[0], commits[2][:12]) {
		t.Fatalf("culprit lines %q, want one naming %s:\n%s", named, commits[2][:12], o.stdout)
	}
	for i, c := range commits {
		if i != 2 && strings.Contains(named[0], c[:7]) {
			t.Errorf("commit %d (%s) named beside the culprit: %s", i, c[:7], named[0])
		}
	}
}
