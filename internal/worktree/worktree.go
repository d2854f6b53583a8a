// Package worktree owns the source trees that A/B builds its base (or
// head) from: a git worktree of one commit, checked out in a temporary
// directory beside the repository's own and removed at the end, all
// through the one git interface (baseline.Git).
package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

// removeTimeout bounds the cleanup, which runs also after Ctrl-C (on a
// context of its own).
const removeTimeout = 30 * time.Second

// Tree is a worktree of one commit.
type Tree struct {
	// Ref is the ref as given; Commit the full sha it named.
	Ref, Commit string
	// Dir is the tree's counterpart of the directory the worktree was
	// made from: the tree's root, or in a monorepo the same subdirectory.
	Dir string

	git  baseline.Git
	repo string // the repository's top directory
	root string // the worktree's top directory
	tmp  string // the temporary directory holding root
}

var shaPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// Add checks out ref (a commit, branch or tag) of the repository that
// holds dir in a new worktree under tempDir ("" for the system's). A sha
// the clone lacks (a shallow checkout) is fetched from origin first.
func Add(ctx context.Context, git baseline.Git, dir, ref, tempDir string) (*Tree, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return nil, &RefError{Err: fmt.Errorf("ref %q cannot name a commit", ref)}
	}
	top, err := output(ctx, git, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("finding the git repository of %s: %w", dir, err)
	}
	prefix, err := output(ctx, git, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	sha, err := resolve(ctx, git, top, ref)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(tempDir, "tailgate-worktree-*")
	if err != nil {
		return nil, fmt.Errorf("making a directory for the worktree of %s: %w", ref, err)
	}
	t := &Tree{Ref: ref, Commit: sha, git: git, repo: top, root: filepath.Join(tmp, "tree"), tmp: tmp}
	t.Dir = filepath.Join(t.root, filepath.FromSlash(prefix))
	if _, err := git.Run(ctx, top, "worktree", "add", "--detach", t.root, sha); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("checking out %s in a worktree: %w", ref, err)
	}
	return t, nil
}

// resolve is the full sha of ref's commit, fetching a sha the clone lacks.
func resolve(ctx context.Context, git baseline.Git, top, ref string) (string, error) {
	sha, err := output(ctx, git, top, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err == nil {
		return sha, nil
	}
	if !shaPattern.MatchString(ref) {
		return "", &RefError{Err: fmt.Errorf("%s is not a commit of this clone (fetch it first, e.g. actions/checkout with fetch-depth: 0): %w", ref, err)}
	}
	if _, ferr := git.Run(ctx, top, "fetch", "--no-tags", "--depth=1", "origin", ref); ferr != nil {
		return "", fmt.Errorf("commit %s is not in this clone and could not be fetched from origin: %w", ref, ferr)
	}
	return output(ctx, git, top, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
}

// RefError is a ref that names no commit of the clone: the user's input
// (a --base-ref or ab.base.ref), not the environment, is wrong.
type RefError struct{ Err error }

func (e *RefError) Error() string { return e.Err.Error() }
func (e *RefError) Unwrap() error { return e.Err }

// BadInput marks the error as the user's input for the exit code.
func (e *RefError) BadInput() bool { return true }

func output(ctx context.Context, git baseline.Git, dir string, args ...string) (string, error) {
	out, err := git.Run(ctx, dir, args...)
	return strings.TrimSpace(string(out)), err
}

// Root is the worktree's top directory.
func (t *Tree) Root() string { return t.root }

// Repo is the top directory of the repository the worktree was made from.
func (t *Tree) Repo() string { return t.repo }

// GitDir is the repository's .git directory, which the worktree's own
// .git file points into: git in the worktree needs it. "" when the
// repository keeps it elsewhere.
func (t *Tree) GitDir() string {
	dir := filepath.Join(t.repo, ".git")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// noRunners keep git from running programs that the repository's config
// names (an fsmonitor, hooks) when the worktree is removed: by then the
// head's code has run, and could have written the repository's config;
// a command given on git's command line outranks every config file.
var noRunners = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}

// Remove deletes the worktree and its temporary directory and unregisters
// it from the repository. It runs to its end even when ctx is cancelled
// (the cleanup after Ctrl-C), within removeTimeout.
func (t *Tree) Remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	_, rmErr := t.git.Run(ctx, t.repo, slices.Concat(noRunners, []string{"worktree", "remove", "--force", t.root})...)
	err := os.RemoveAll(t.tmp)
	if rmErr != nil {
		// The directory is gone now: pruning unregisters it.
		if _, perr := t.git.Run(ctx, t.repo, slices.Concat(noRunners, []string{"worktree", "prune"})...); perr != nil {
			err = errors.Join(err, rmErr, perr)
		}
	}
	if err != nil {
		return fmt.Errorf("removing the worktree of %s at %s: %w", t.Ref, t.root, err)
	}
	return nil
}
