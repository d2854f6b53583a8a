package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
)

// trustRepo is a git repository, the working directory of the test, whose
// first commit (returned) holds base as tailgate.yml and whose working
// tree holds head; it has no feed file at the base commit.
func trustRepo(t *testing.T, base, head string) (sha string, cfg *config.Config) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	if base != "" {
		if err := os.WriteFile("tailgate.yml", []byte(base), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
	}
	git("commit", "-q", "--allow-empty", "-m", "base")
	sha = git("rev-parse", "HEAD")
	if err := os.WriteFile("tailgate.yml", []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("tailgate.yml", []byte(head))
	if err != nil {
		t.Fatal(err)
	}
	return sha, cfg
}

// The one trust path of the CLI (--benchmark-from base) and the Action (a
// pull request): the benchmark file as the base commit has it, whole or
// its gate's policy alone, named in the report, with the commit read.
func TestTrustBase(t *testing.T) {
	bench := strings.Replace(policyBench, "8080\"}", "8080\", start: {command: [./s]}}", 1)
	base := bench + "gate: {min_effect: {latency_p95_ms: 10}}\nab: {base: {ref: main}}\n"
	head := bench + "gate: {min_effect: {latency_p95_ms: 90}}\nbuild: {command: [make]}\nab: {base: {ref: main}}\n"
	sha, cfg := trustRepo(t, base, head)
	ctx := t.Context()
	git := baseline.ExecGit{}

	p, err := TrustBase(ctx, cfg, "", "", true, git) // the ref: ab.base.ref
	if err != nil {
		t.Fatal(err)
	}
	if p.Commit != sha || p.Benchmark == nil || p.Benchmark.Build != nil || p.Gate.MinEffect["latency_p95_ms"] != 10 {
		t.Errorf("whole: commit %s (want %s), benchmark %+v, gate %+v", p.Commit, sha, p.Benchmark, p.Gate)
	}
	wantNote(t, p.Notes, "tailgate.yml at main "+sha[:12], "This PR changes the benchmark (changed: build)")

	p, err = TrustBase(ctx, cfg, sha, "the PR's base commit", false, git) // a sha is used as it is
	if err != nil {
		t.Fatal(err)
	}
	if p.Commit != sha || p.Benchmark != nil || p.Gate.MinEffect["latency_p95_ms"] != 10 {
		t.Errorf("policy: commit %s, benchmark %v, gate %+v", p.Commit, p.Benchmark, p.Gate)
	}
	wantNote(t, p.Notes, "tailgate.yml at the PR's base commit "+sha[:12], "changed: gate.min_effect")

	for _, c := range []struct {
		name string
		cfg  *config.Config
		ref  string
		kind Kind
		want string
	}{
		{"no ref", parseBench(t, ""), "", Usage, "needs the base as a git ref"},
		{"not a commit", cfg, "nosuchref", Usage, "nosuchref is not a commit"},
		{"outside the checkout", func() *config.Config { c := *cfg; c.Path = filepath.Join(t.TempDir(), "x.yml"); return &c }(), "main", Usage, "outside the working directory"},
	} {
		if _, err := TrustBase(ctx, c.cfg, c.ref, "", true, git); KindOf(err) != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v %q", c.name, err, c.kind, c.want)
		}
	}
}

// A base commit without the benchmark file (the PR adds tailgate): the
// pull request's own, with a warning.
func TestTrustBaseWithoutTheFile(t *testing.T) {
	sha, cfg := trustRepo(t, "", policyBench)
	p, err := TrustBase(t.Context(), cfg, sha, "the PR's base commit", true, baseline.ExecGit{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Benchmark != nil || !strings.Contains(p.Warning, "tailgate.yml at the PR's base commit "+sha[:12]+" does not exist") {
		t.Errorf("policy %+v", p)
	}
}

func wantNote(t *testing.T, notes []string, want ...string) {
	t.Helper()
	all := strings.Join(notes, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("notes lack %q:\n%s", w, all)
		}
	}
}
