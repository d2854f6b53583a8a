package baseline

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recordingGit runs real git and logs each command's first argument.
type recordingGit struct {
	mu   sync.Mutex
	cmds []string
}

func (g *recordingGit) Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	g.mu.Lock()
	g.cmds = append(g.cmds, strings.Join(args, " "))
	g.mu.Unlock()
	return ExecGit{}.Run(ctx, dir, args...)
}

func (g *recordingGit) fetches() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(slices.DeleteFunc(slices.Clone(g.cmds), func(c string) bool { return !strings.HasPrefix(c, "fetch ") }))
}

// gitRepos is an "origin" with a main branch (the PR's base), a PR branch
// that rewrites the baseline, and a baselines branch; plus a shallow clone of
// the PR branch, as actions/checkout leaves it.
type gitRepos struct {
	origin, workspace string
	baseSHA           string
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := ExecGit{}.Run(t.Context(), dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newGitRepos(t *testing.T) gitRepos {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	empty := filepath.Join(root, "gitconfig") // no user config (signing, hooks) in the way
	writeFile(t, empty, "")
	t.Setenv("GIT_CONFIG_GLOBAL", empty)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r := gitRepos{origin: filepath.Join(root, "origin"), workspace: filepath.Join(root, "workspace")}
	git(t, root, "init", "-q", "-b", "main", r.origin)
	// GitHub serves any reachable commit by sha; a local origin must be told to.
	git(t, r.origin, "config", "uploadpack.allowReachableSHA1InWant", "true")
	writeFile(t, filepath.Join(r.origin, "baselines", "api.json"), `{"p99_ms": 12}`)
	writeFile(t, filepath.Join(r.origin, "services", "api", "baselines", "api.json"), `{"p99_ms": 30}`)
	git(t, r.origin, "add", ".")
	git(t, r.origin, "commit", "-q", "-m", "baseline")
	r.baseSHA = git(t, r.origin, "rev-parse", "HEAD")

	git(t, r.origin, "checkout", "-q", "-b", "tailgate-baselines")
	writeFile(t, filepath.Join(r.origin, "baselines", "api.json"), `{"p99_ms": 11, "branch": true}`)
	git(t, r.origin, "commit", "-q", "-am", "recorded on push")

	git(t, r.origin, "checkout", "-q", "-b", "pr", "main")
	writeFile(t, filepath.Join(r.origin, "baselines", "api.json"), `{"p99_ms": 999}`)
	git(t, r.origin, "commit", "-q", "-am", "loosen my own baseline")
	git(t, r.origin, "commit", "-q", "--allow-empty", "-m", "more work")
	git(t, r.origin, "checkout", "-q", "main")

	git(t, root, "clone", "-q", "--depth=1", "--branch", "pr", "file://"+r.origin, r.workspace)
	// And an uncommitted edit in the working tree on top.
	writeFile(t, filepath.Join(r.workspace, "baselines", "api.json"), `{"p99_ms": 5000}`)
	return r
}

func TestReadAtCommitIgnoresThePRsWorkingTree(t *testing.T) {
	r := newGitRepos(t)
	g := &recordingGit{}
	if _, err := g.Run(t.Context(), r.workspace, "cat-file", "-e", r.baseSHA+"^{commit}"); err == nil {
		t.Fatal("the shallow clone already has the base commit; the fetch path is not exercised")
	}
	headBefore := git(t, r.workspace, "rev-parse", "HEAD")

	got, err := ReadFileAtCommit(t.Context(), r.workspace, r.baseSHA, "baselines/api.json", "baseline", g)
	if err != nil {
		t.Fatalf("BaselineFromBase: %v", err)
	}
	if string(got) != `{"p99_ms": 12}` {
		t.Errorf("read %q, want the base commit's baseline", got)
	}
	if g.fetches() != 1 {
		t.Errorf("git commands %v, want exactly one fetch of the missing base commit", g.cmds)
	}
	onDisk, _ := os.ReadFile(filepath.Join(r.workspace, "baselines", "api.json"))
	if string(onDisk) != `{"p99_ms": 5000}` || git(t, r.workspace, "rev-parse", "HEAD") != headBefore {
		t.Errorf("reading the baseline changed the checkout: file %q", onDisk)
	}

	// The commit is now present: no second fetch.
	if _, err := ReadFileAtCommit(t.Context(), r.workspace, r.baseSHA, "./baselines/api.json", "baseline", g); err != nil {
		t.Fatalf("second read: %v", err)
	}
	if g.fetches() != 1 {
		t.Errorf("git commands %v, want no second fetch", g.cmds)
	}
}

func TestReadAtCommitRelativeToWorkingDirectory(t *testing.T) {
	r := newGitRepos(t)
	dir := filepath.Join(r.workspace, "services", "api")
	got, err := ReadFileAtCommit(t.Context(), dir, r.baseSHA, "baselines/api.json", "baseline", ExecGit{})
	if err != nil || string(got) != `{"p99_ms": 30}` {
		t.Errorf("read from services/api = %q, %v; want the subdirectory's baseline", got, err)
	}
}

func TestReadAtCommitErrors(t *testing.T) {
	r := newGitRepos(t)
	_, err := ReadFileAtCommit(t.Context(), r.workspace, r.baseSHA, "baselines/missing.json", "baseline", ExecGit{})
	if !errors.Is(err, ErrNotAtCommit) {
		t.Errorf("missing file: %v, want ErrNotAtCommit", err)
	}
	g := &recordingGit{}
	for _, tt := range []struct{ sha, path, want string }{
		{"--upload-pack=touch /tmp/x", "baselines/api.json", "not a commit sha"},
		{"main", "baselines/api.json", "not a commit sha"},
		{r.baseSHA, "../outside.json", "leaves the working directory"},
		{r.baseSHA, "/etc/passwd", "must be relative"},
		{r.baseSHA, "", "must be relative"},
	} {
		if _, err := ReadFileAtCommit(t.Context(), r.workspace, tt.sha, tt.path, "baseline", g); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadAtCommit(%q, %q) = %v, want %q", tt.sha, tt.path, err, tt.want)
		}
	}
	if len(g.cmds) != 0 {
		t.Errorf("bad arguments still ran git: %v", g.cmds)
	}
	unknown := strings.Repeat("ab", 20)
	if _, err := ReadFileAtCommit(t.Context(), r.workspace, unknown, "baselines/api.json", "baseline", ExecGit{}); err == nil ||
		!strings.Contains(err.Error(), "fetch the base commit") {
		t.Errorf("unknown commit: %v, want a fetch error", err)
	}
}

func TestReadAtBranchReadsTheCurrentTip(t *testing.T) {
	r := newGitRepos(t)
	got, err := ReadAtBranch(t.Context(), r.workspace, "tailgate-baselines", "baselines/api.json", "baseline", ExecGit{})
	if err != nil || string(got) != `{"p99_ms": 11, "branch": true}` {
		t.Fatalf("read = %q, %v; want the branch's baseline", got, err)
	}
	git(t, r.origin, "checkout", "-q", "tailgate-baselines")
	writeFile(t, filepath.Join(r.origin, "baselines", "api.json"), `{"p99_ms": 10}`)
	git(t, r.origin, "commit", "-q", "-am", "newer push")
	got, err = ReadAtBranch(t.Context(), r.workspace, "tailgate-baselines", "baselines/api.json", "baseline", ExecGit{})
	if err != nil || string(got) != `{"p99_ms": 10}` {
		t.Errorf("after a new push read = %q, %v; want the new tip", got, err)
	}
	if _, err := ReadAtBranch(t.Context(), r.workspace, "-x", "baselines/api.json", "baseline", ExecGit{}); err == nil {
		t.Error("a branch name starting with '-' was accepted")
	}
}

// A git source reads the file at the trusted commit: missing there is no
// baseline yet, present but not a baseline is an error naming the place.
func TestGitSources(t *testing.T) {
	r := newGitRepos(t)
	missing := BaseCommitSource{Dir: r.workspace, Commit: r.baseSHA, Path: "baselines/missing.json", Git: ExecGit{}}
	if bl, err := missing.Read(t.Context()); bl != nil || err != nil {
		t.Errorf("missing at the commit: %v, %v; want no baseline and no error", bl, err)
	}
	src := BaseCommitSource{Dir: r.workspace, Commit: r.baseSHA, Path: "baselines/api.json", Git: ExecGit{}}
	if want := "baselines/api.json at the PR's base commit " + r.baseSHA[:12]; src.String() != want {
		t.Errorf("String = %q, want %q", src, want)
	}
	// The fixture's file is not a baseline: the error proves it was read
	// from the commit ({"p99_ms": 12}), not the working tree.
	if _, err := src.Read(t.Context()); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), src.String()) {
		t.Errorf("Read = %v, want ErrCorrupt naming %s", err, src)
	}
	branch := BranchSource{Dir: r.workspace, Branch: "tailgate-baselines", Path: "baselines/api.json", Git: ExecGit{}}
	if _, err := branch.Read(t.Context()); !errors.Is(err, ErrCorrupt) || branch.String() != "baselines/api.json on branch tailgate-baselines" {
		t.Errorf("branch source %s: %v", branch, err)
	}
}
