package baseline

import (
	"context"
	"errors"
	"fmt"
)

// Source is where a check reads its baseline from: a file, or a file as it
// is in a trusted git commit or branch.
type Source interface {
	// Read returns the baseline, or nil and no error when there is none
	// yet. Any other failure is an error: an unreadable baseline is never
	// mistaken for a missing one.
	Read(ctx context.Context) (*File, error)
	// String names the place, for reports.
	String() string
}

// FileSource is a baseline file in the working directory.
type FileSource struct {
	Path string
	// Name is how reports name the place; empty for the path.
	Name string
}

var _ Source = FileSource{}

func (s FileSource) Read(context.Context) (*File, error) {
	bl, err := Read(s.Path)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return bl, err
}

func (s FileSource) String() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Path
}

// BaseCommitSource is the baseline file as it is in the pull request's
// base commit, which the pull request cannot edit (see ReadAtCommit).
type BaseCommitSource struct {
	Dir, Commit, Path string
	Git               Git
}

var _ Source = BaseCommitSource{}

func (s BaseCommitSource) Read(ctx context.Context) (*File, error) {
	return decodeFromGit(s.String(), func() ([]byte, error) { return ReadAtCommit(ctx, s.Dir, s.Commit, s.Path, s.Git) })
}

func (s BaseCommitSource) String() string {
	return fmt.Sprintf("%s at the PR's base commit %.12s", s.Path, s.Commit)
}

// BranchSource is the baseline file at the tip of a branch on origin that
// only trusted (push) runs write (see ReadAtBranch).
type BranchSource struct {
	Dir, Branch, Path string
	Git               Git
}

var _ Source = BranchSource{}

func (s BranchSource) Read(ctx context.Context) (*File, error) {
	return decodeFromGit(s.String(), func() ([]byte, error) { return ReadAtBranch(ctx, s.Dir, s.Branch, s.Path, s.Git) })
}

func (s BranchSource) String() string { return fmt.Sprintf("%s on branch %s", s.Path, s.Branch) }

// decodeFromGit reads a baseline with git: a file missing at the commit is
// no baseline yet.
func decodeFromGit(name string, read func() ([]byte, error)) (*File, error) {
	data, err := read()
	if errors.Is(err, ErrNotAtCommit) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	return Decode(name, data)
}
