package ci

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/bounded"
)

// The payload types declare only the fields tailgate reads; the webhook
// payloads carry hundreds more.

type repoPayload struct {
	FullName string `json:"full_name"`
	Fork     bool   `json:"fork"`
}

type branchPayload struct {
	Ref  string       `json:"ref"`
	SHA  string       `json:"sha"`
	Repo *repoPayload `json:"repo"` // null when the fork was deleted
}

type pullRequestPayload struct {
	Number int           `json:"number"`
	Head   branchPayload `json:"head"`
	Base   branchPayload `json:"base"`
}

type workflowRunPayload struct {
	ID             int64                `json:"id"`
	Event          string               `json:"event"`
	HeadSHA        string               `json:"head_sha"`
	HeadBranch     string               `json:"head_branch"`
	Conclusion     string               `json:"conclusion"`
	PullRequests   []pullRequestPayload `json:"pull_requests"` // empty for fork PRs
	HeadRepository *repoPayload         `json:"head_repository"`
	Repository     *repoPayload         `json:"repository"`
}

type eventPayload struct {
	Number      int                 `json:"number"`
	PullRequest *pullRequestPayload `json:"pull_request"`
	Before      string              `json:"before"`
	After       string              `json:"after"`
	WorkflowRun *workflowRunPayload `json:"workflow_run"`
	Repository  *repoPayload        `json:"repository"`
}

// maxEventBytes bounds the event payload read: GitHub's webhook payloads
// are capped at 25 MB.
const maxEventBytes = 32 << 20

// applyEvent reads the payload at c.EventPath and fills the event facts.
func applyEvent(c *Context) error {
	data, err := bounded.ReadFile(c.EventPath, "event payload", maxEventBytes)
	if err != nil {
		return fmt.Errorf("read the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	var ev eventPayload
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("parse the event payload %s: %w", c.EventPath, err)
	}
	switch c.EventName {
	case "pull_request", "pull_request_target":
		return applyPullRequest(c, ev)
	case "push":
		c.Before, c.HeadSHA = ev.Before, cmp.Or(ev.After, c.HeadSHA)
	case "workflow_run":
		return applyWorkflowRun(c, ev)
	}
	return nil
}

func applyPullRequest(c *Context, ev eventPayload) error {
	pr := ev.PullRequest
	if pr == nil {
		return fmt.Errorf("%s event payload %s has no pull_request object", c.EventName, c.EventPath)
	}
	c.PR = cmp.Or(max(pr.Number, 0), ev.Number)
	if c.PR <= 0 {
		return fmt.Errorf("%s event payload %s has no pull request number", c.EventName, c.EventPath)
	}
	c.PRs = []int{c.PR}
	c.BaseSHA, c.BaseRef = pr.Base.SHA, pr.Base.Ref
	c.HeadSHA, c.HeadRef = pr.Head.SHA, pr.Head.Ref
	c.IsFork = isFork(pr.Head.Repo, cmp.Or(pr.Base.Repo, ev.Repository))
	c.ReadOnlyToken = (c.IsFork || c.Actor == "dependabot[bot]") && c.EventName == "pull_request"
	return nil
}

func applyWorkflowRun(c *Context, ev eventPayload) error {
	run := ev.WorkflowRun
	if run == nil {
		return fmt.Errorf("workflow_run event payload %s has no workflow_run object", c.EventPath)
	}
	c.TriggerEvent, c.TriggerRunID, c.TriggerConclusion = run.Event, run.ID, run.Conclusion
	c.HeadSHA, c.HeadRef = run.HeadSHA, run.HeadBranch
	for _, pr := range run.PullRequests {
		if pr.Number <= 0 {
			continue
		}
		if len(c.PRs) == 0 {
			c.PR, c.BaseSHA, c.BaseRef = pr.Number, pr.Base.SHA, pr.Base.Ref
		}
		c.PRs = append(c.PRs, pr.Number)
	}
	c.IsFork = isFork(run.HeadRepository, cmp.Or(run.Repository, ev.Repository))
	return nil
}

// isFork reports whether head is another repository than base; a deleted
// head repository (null) counts as a fork.
func isFork(head, base *repoPayload) bool {
	if head == nil {
		return true
	}
	if base == nil {
		return head.Fork
	}
	return !strings.EqualFold(head.FullName, base.FullName)
}
