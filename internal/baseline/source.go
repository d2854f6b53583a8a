package baseline

import (
	"cmp"
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
	// fetch reads the stored file what names ("baseline", or the
	// "history" beside it) from the place, with the name messages give it.
	fetch(ctx context.Context, what string) (name string, data []byte, err error)
}

// FileSource is a baseline file in the working directory.
type FileSource struct {
	Path string
	// Name is how reports name the place; empty for the path.
	Name string
}

func (s FileSource) Read(ctx context.Context) (*File, error) { return readBaseline(ctx, s) }

func (s FileSource) fetch(_ context.Context, what string) (string, []byte, error) {
	file := storedPath(s.Path, what)
	data, err := readStored(file, what)
	return file, data, err
}

func (s FileSource) String() string { return cmp.Or(s.Name, s.Path) }

// BaseCommitSource is the baseline file as it is in the pull request's
// base commit, which the pull request cannot edit (see ReadFileAtCommit).
type BaseCommitSource struct {
	Dir, Commit, Path string
	Git               Git
}

func (s BaseCommitSource) Read(ctx context.Context) (*File, error) { return readBaseline(ctx, s) }

func (s BaseCommitSource) fetch(ctx context.Context, what string) (string, []byte, error) {
	s.Path = storedPath(s.Path, what)
	data, err := ReadFileAtCommit(ctx, s.Dir, s.Commit, s.Path, what, s.Git)
	return s.String(), data, err
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

func (s BranchSource) Read(ctx context.Context) (*File, error) { return readBaseline(ctx, s) }

func (s BranchSource) fetch(ctx context.Context, what string) (string, []byte, error) {
	s.Path = storedPath(s.Path, what)
	data, err := ReadAtBranch(ctx, s.Dir, s.Branch, s.Path, what, s.Git)
	return s.String(), data, err
}

func (s BranchSource) String() string { return fmt.Sprintf("%s on branch %s", s.Path, s.Branch) }

// storedPath is the file what names beside the baseline at path.
func storedPath(path, what string) string {
	if what == "history" {
		return HistoryPath(path)
	}
	return path
}

func readBaseline(ctx context.Context, src Source) (*File, error) {
	return readFrom(ctx, src, "baseline", Decode)
}

// readFrom decodes src's stored file what names; nil and no error when
// src has none.
func readFrom[T any](ctx context.Context, src Source, what string, decode func(string, []byte) (*T, error)) (*T, error) {
	name, data, err := src.fetch(ctx, what)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotAtCommit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decode(name, data)
}

// ReadHistoryBeside reads the history kept beside the baseline that src
// reads, from the same place (the working directory, the PR's base commit,
// or the baselines branch): a pull request can edit neither. It returns
// nil and no error when there is no history there.
func ReadHistoryBeside(ctx context.Context, src Source) (*History, error) {
	return readFrom(ctx, src, "history", DecodeHistory)
}
