package baseline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/bounded"
)

// Git runs git with args in dir and returns its standard output.
type Git interface {
	Run(ctx context.Context, dir string, args ...string) ([]byte, error)
}

// ExecGit runs the git binary found on PATH, never prompting for credentials.
type ExecGit struct{}

// Run runs git; a failure's error carries git's standard error.
func (ExecGit) Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// ErrNotAtCommit reports that a file does not exist at the commit asked
// for (e.g. the PR adds the first baseline, or the first tailgate.yml).
var ErrNotAtCommit = errors.New("the file does not exist at that commit")

var shaPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// ReadFileAtCommit reads file (relative to repoDir) as it is in commit,
// never from the working tree, so a pull request cannot edit the baseline
// (or benchmark file) it is judged by; what names the file in errors. When
// the checkout lacks the commit (a shallow clone), it fetches just that
// commit from origin first.
func ReadFileAtCommit(ctx context.Context, repoDir, commit, file, what string, git Git) ([]byte, error) {
	if !shaPattern.MatchString(commit) {
		return nil, fmt.Errorf("read the %s at the base commit: %q is not a commit sha", what, commit)
	}
	spec, err := treePath(file, what)
	if err != nil {
		return nil, err
	}
	if _, err := git.Run(ctx, repoDir, "cat-file", "-e", commit+"^{commit}"); err != nil {
		if _, err := git.Run(ctx, repoDir, "fetch", "--no-tags", "--depth=1", "origin", commit); err != nil {
			return nil, fmt.Errorf("fetch the base commit %s to read the %s: %w", commit, what, err)
		}
	}
	return showAt(ctx, git, repoDir, commit, spec, file, what)
}

// ReadAtBranch reads the file at path (relative to repoDir) as it is at
// the tip of branch on origin, fetching the branch first so the tip is
// current; what names the file in errors.
func ReadAtBranch(ctx context.Context, repoDir, branch, file, what string, git Git) ([]byte, error) {
	if !ValidBranch(branch) {
		return nil, fmt.Errorf("read %s from branch: %q is not a branch name", what, branch)
	}
	spec, err := treePath(file, what)
	if err != nil {
		return nil, err
	}
	if _, err := git.Run(ctx, repoDir, "fetch", "--no-tags", "--depth=1", "origin", "refs/heads/"+branch); err != nil {
		return nil, fmt.Errorf("fetch branch %s to read the %s: %w", branch, what, err)
	}
	out, err := git.Run(ctx, repoDir, "rev-parse", "--verify", "FETCH_HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("resolve the fetched branch %s: %w", branch, err)
	}
	return showAt(ctx, git, repoDir, strings.TrimSpace(string(out)), spec, file, what)
}

// showAt prints spec at rev, telling a missing file from a git failure.
func showAt(ctx context.Context, git Git, dir, rev, spec, file, what string) ([]byte, error) {
	obj := rev + ":" + spec
	if _, err := git.Run(ctx, dir, "cat-file", "-e", obj); err != nil {
		return nil, fmt.Errorf("%s %s at %s: %w", what, file, shortSHA(rev), ErrNotAtCommit)
	}
	// The size first: a file past its bound is never read whole.
	out, err := git.Run(ctx, dir, "cat-file", "-s", obj)
	if err != nil {
		return nil, fmt.Errorf("read the %s %s at %s: %w", what, file, shortSHA(rev), err)
	}
	if size, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err != nil || size > storedLimit(what) {
		return nil, &bounded.TooLargeError{Path: file + " at " + shortSHA(rev), What: what + " file", Limit: storedLimit(what), Size: size}
	}
	data, err := git.Run(ctx, dir, "show", obj)
	if err != nil {
		return nil, fmt.Errorf("read the %s %s at %s: %w", what, file, shortSHA(rev), err)
	}
	return data, nil
}

// treePath turns a path relative to the git working directory into the
// "./path" form git resolves against that directory.
func treePath(file, what string) (string, error) {
	if file == "" || filepath.IsAbs(file) {
		return "", fmt.Errorf("%s path %q must be relative to the working directory", what, file)
	}
	clean := path.Clean(filepath.ToSlash(file))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s path %q leaves the working directory", what, file)
	}
	return "./" + clean, nil
}

func shortSHA(sha string) string { return sha[:min(len(sha), 12)] }

// ValidBranch reports whether name can name a branch for ReadAtBranch:
// not empty, and nothing git would read as an option or revision syntax.
func ValidBranch(name string) bool {
	return name != "" && !strings.HasPrefix(name, "-") && !strings.Contains(name, "..") && !strings.ContainsAny(name, " ~^:?*[\\\t\n")
}

// FilesAtCommit reads files (paths relative to repoDir) as commit has
// them, for a benchmark file read at that commit (config.ParseAt): the
// files it names are the commit's too. A file larger than max bytes is
// an error.
func FilesAtCommit(ctx context.Context, repoDir, commit string, git Git) func(path string, max int64) ([]byte, error) {
	return func(file string, max int64) ([]byte, error) {
		data, err := ReadFileAtCommit(ctx, repoDir, commit, file, "file", git)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > max {
			return nil, fmt.Errorf("%s at %s is %d bytes, more than the %d MiB tailgate reads", file, shortSHA(commit), len(data), max>>20)
		}
		return data, nil
	}
}

// ResolveCommit is the full sha of the commit ref names in the
// repository at repoDir.
func ResolveCommit(ctx context.Context, repoDir, ref string, git Git) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("ref %q cannot name a commit", ref)
	}
	out, err := git.Run(ctx, repoDir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit of this repository: %w", ref, err)
	}
	return strings.TrimSpace(string(out)), nil
}
