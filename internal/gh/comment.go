package gh

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/tailgate-ci/tailgate/internal/ci/mdtrunc"
)

// Commenter keeps one sticky comment per marker on a pull request.
type Commenter interface {
	// Upsert edits our comment that carries marker, or creates one.
	Upsert(ctx context.Context, owner, repo string, pr int, marker, body string) (Comment, error)
	// UpdateExisting edits our comment that carries marker if there is one;
	// found is false (and nothing is written) when there is none.
	UpdateExisting(ctx context.Context, owner, repo string, pr int, marker, body string) (c Comment, found bool, err error)
}

var _ Commenter = (*Client)(nil)

// Comment is the sticky comment after a write.
type Comment struct {
	ID        int64
	URL       string
	Created   bool // a new comment, not an edit
	Truncated bool // the body was cut to MaxCommentBytes
}

// MaxCommentBytes caps a comment body. GitHub's limit is 65,536 characters;
// counting bytes and staying below it keeps any way of counting under.
const MaxCommentBytes = 60000

// maxCommentPages bounds the search for our comment (100 comments a page).
const maxCommentPages = 30

// Upsert edits the comment on pull request pr that the token's user wrote
// and that carries marker, or creates one. Comments by anyone else are never
// edited, even when they carry the marker. A body over MaxCommentBytes is cut
// with a note (Comment.Truncated); the marker is always kept.
func (c *Client) Upsert(ctx context.Context, owner, repo string, pr int, marker, body string) (Comment, error) {
	existing, err := c.prepare(ctx, owner, repo, pr, marker)
	if err != nil {
		return Comment{}, err
	}
	body, truncated := fitBody(body, marker)
	if existing != nil {
		return c.edit(ctx, owner, repo, existing.GetID(), body, truncated)
	}
	made, _, err := c.api.Issues.CreateComment(ctx, owner, repo, pr, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, fmt.Errorf("create the comment on %s/%s#%d: %w", owner, repo, pr, described(err))
	}
	return Comment{ID: made.GetID(), URL: made.GetHTMLURL(), Created: true, Truncated: truncated}, nil
}

// UpdateExisting edits our marked comment on pr if there is one, and writes
// nothing otherwise (for "comment only on regression" once it is fixed).
func (c *Client) UpdateExisting(ctx context.Context, owner, repo string, pr int, marker, body string) (Comment, bool, error) {
	existing, err := c.prepare(ctx, owner, repo, pr, marker)
	if err != nil || existing == nil {
		return Comment{}, false, err
	}
	body, truncated := fitBody(body, marker)
	out, err := c.edit(ctx, owner, repo, existing.GetID(), body, truncated)
	return out, err == nil, err
}

// prepare checks the arguments and finds our existing comment, if any: the
// first by the token's user that carries marker.
func (c *Client) prepare(ctx context.Context, owner, repo string, pr int, marker string) (*github.IssueComment, error) {
	if pr <= 0 {
		// ListComments with 0 would list every comment in the repository.
		return nil, fmt.Errorf("comment on %s/%s: no pull request number (got %d): run on pull_request or pass the PR number", owner, repo, pr)
	}
	if owner == "" || repo == "" {
		return nil, errors.New("comment: the repository owner and name are required")
	}
	if !strings.HasPrefix(marker, "<!--") || !strings.HasSuffix(marker, "-->") || len(marker) < 8 {
		return nil, fmt.Errorf("comment marker %q must be a hidden HTML comment, e.g. <!-- tailgate:name -->", marker)
	}
	author, err := c.authorLogin(ctx)
	if err != nil {
		return nil, err
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxCommentPages; page++ {
		comments, resp, err := c.api.Issues.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return nil, fmt.Errorf("list the comments of %s/%s#%d: %w", owner, repo, pr, described(err))
		}
		for _, cm := range comments {
			if strings.EqualFold(cm.GetUser().GetLogin(), author) && strings.Contains(cm.GetBody(), marker) {
				return cm, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
	return nil, nil
}

func (c *Client) edit(ctx context.Context, owner, repo string, id int64, body string, truncated bool) (Comment, error) {
	made, _, err := c.api.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, fmt.Errorf("edit comment %d on %s/%s: %w", id, owner, repo, described(err))
	}
	return Comment{ID: made.GetID(), URL: made.GetHTMLURL(), Truncated: truncated}, nil
}

// fitBody makes sure body carries marker and fits MaxCommentBytes.
func fitBody(body, marker string) (string, bool) {
	body = strings.ReplaceAll(body, marker, "")
	const note = "> [!NOTE]\n> The details were cut to fit GitHub's comment size limit; " +
		"the job summary of this run has the full report."
	fitted, truncated := mdtrunc.Fit(body, MaxCommentBytes-len(marker)-1, note)
	return marker + "\n" + fitted, truncated
}
