package baseline

import (
	"cmp"
	"context"
	"fmt"
	"strings"
)

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
		// An annotated tag's commit is the one it points to.
		tags = append(tags, Tag{Name: f[0], Commit: cmp.Or(f[2], f[1])})
	}
	return tags, nil
}
