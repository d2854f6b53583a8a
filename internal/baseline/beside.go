package baseline

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ReadHistoryBeside reads the history kept beside the baseline that src
// reads, from the same place (the working directory, the PR's base commit,
// or the baselines branch): a pull request can edit neither. It returns
// nil and no error when there is no history there.
func ReadHistoryBeside(ctx context.Context, src Source) (*History, error) {
	var (
		name string
		data []byte
		err  error
	)
	switch s := src.(type) {
	case FileSource:
		h, err := ReadHistory(HistoryPath(s.Path))
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return h, err
	case BaseCommitSource:
		name = HistoryPath(s.Path) + " at " + shortSHA(s.Commit)
		data, err = ReadFileAtCommit(ctx, s.Dir, s.Commit, HistoryPath(s.Path), "history", s.Git)
	case BranchSource:
		name = HistoryPath(s.Path) + " on branch " + s.Branch
		data, err = ReadAtBranch(ctx, s.Dir, s.Branch, HistoryPath(s.Path), s.Git)
	default:
		return nil, fmt.Errorf("no history beside %s", src)
	}
	if errors.Is(err, ErrNotAtCommit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return DecodeHistory(name, data)
}

// Tag is a release tag and the commit it points to.
type Tag struct{ Name, Commit string }

// TagLister lists the tags matching a glob, newest version first.
type TagLister interface {
	Tags(ctx context.Context, glob string) ([]Tag, error)
}

// GitTags lists the tags of the repository in Dir. A shallow checkout
// has tags only when fetched with them (actions/checkout: fetch-tags).
type GitTags struct {
	Dir string
	Git Git
}

var _ TagLister = GitTags{}

// Tags lists the tags matching glob, sorted by version, newest first;
// an annotated tag gives the commit it points to.
func (g GitTags) Tags(ctx context.Context, glob string) ([]Tag, error) {
	if glob == "" || strings.HasPrefix(glob, "-") {
		return nil, fmt.Errorf("list tags: %q is not a tag glob", glob)
	}
	out, err := g.Git.Run(ctx, g.Dir, "for-each-ref", "--sort=-v:refname", "--format=%(refname:strip=2)%09%(objectname)%09%(*objectname)", "refs/tags/"+glob)
	if err != nil {
		return nil, fmt.Errorf("list tags %s: %w", glob, err)
	}
	var tags []Tag
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		commit := f[1]
		if f[2] != "" {
			commit = f[2] // the commit an annotated tag points to
		}
		tags = append(tags, Tag{Name: f[0], Commit: commit})
	}
	return tags, nil
}
