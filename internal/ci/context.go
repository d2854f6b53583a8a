// Package ci owns the GitHub Actions runtime contract: the job's context,
// the action's inputs and outputs, workflow commands and the job summary.
// Only it imports go-githubactions; environment and writers are injected.
package ci

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// DefaultAPIURL is github.com's REST API, used when GITHUB_API_URL is unset.
const DefaultAPIURL = "https://api.github.com"

// Context is what tailgate needs to know about the job it runs in.
type Context struct {
	IsActions  bool   // GITHUB_ACTIONS == "true"
	EventName  string // pull_request, push, workflow_run, ...
	EventPath  string
	Owner      string
	Repo       string
	SHA        string // GITHUB_SHA: the merge commit on pull_request
	Ref        string
	Actor      string
	APIURL     string // no trailing slash
	ServerURL  string
	Workspace  string
	RunID      string
	RunAttempt string
	JobID      string // GITHUB_JOB, the job's key in the workflow
	Workflow   string

	// Pull request facts; PR is 0 when the event has no (single) PR.
	PR      int
	PRs     []int // all PRs a workflow_run was triggered for
	BaseSHA string
	BaseRef string
	HeadSHA string // the PR head (pull_request) or the run's head (workflow_run)
	HeadRef string
	IsFork  bool // the head repository is another (or was deleted)
	// ReadOnlyToken: the event's GITHUB_TOKEN is read-only (fork or
	// Dependabot pull_request): API writes get 403.
	ReadOnlyToken bool
	Before        string // push: the sha the branch pointed at before
	// workflow_run facts: the run that triggered this workflow.
	TriggerEvent      string
	TriggerRunID      int64
	TriggerConclusion string
}

func (c Context) IsPullRequest() bool {
	return c.EventName == "pull_request" || c.EventName == "pull_request_target"
}

// TriggerRunURL is the link to the run that triggered this workflow_run
// job, or "" when there is none.
func (c Context) TriggerRunURL() string {
	if c.TriggerRunID == 0 {
		return ""
	}
	return c.runURL(strconv.FormatInt(c.TriggerRunID, 10))
}

func (c Context) runURL(id string) string {
	if c.ServerURL == "" || c.Owner == "" || id == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%s", c.ServerURL, c.Owner, c.Repo, id)
}

// Detect reads the job's context from the environment (through getenv) and
// the event payload file named by GITHUB_EVENT_PATH. Outside Actions
// (GITHUB_ACTIONS unset) it returns what the environment has and no error.
func Detect(getenv func(string) string) (Context, error) {
	c := Context{
		IsActions:  getenv("GITHUB_ACTIONS") == "true",
		EventName:  getenv("GITHUB_EVENT_NAME"),
		EventPath:  getenv("GITHUB_EVENT_PATH"),
		SHA:        getenv("GITHUB_SHA"),
		Ref:        getenv("GITHUB_REF"),
		Actor:      getenv("GITHUB_ACTOR"),
		APIURL:     cmp.Or(getenv("GITHUB_API_URL"), DefaultAPIURL),
		ServerURL:  cmp.Or(getenv("GITHUB_SERVER_URL"), "https://github.com"),
		Workspace:  getenv("GITHUB_WORKSPACE"),
		RunID:      getenv("GITHUB_RUN_ID"),
		RunAttempt: getenv("GITHUB_RUN_ATTEMPT"),
		JobID:      getenv("GITHUB_JOB"),
		Workflow:   getenv("GITHUB_WORKFLOW"),
		BaseRef:    getenv("GITHUB_BASE_REF"),
		HeadRef:    getenv("GITHUB_HEAD_REF"),
	}
	c.APIURL = strings.TrimRight(c.APIURL, "/")
	if repo := getenv("GITHUB_REPOSITORY"); repo != "" {
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return c, fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", repo)
		}
		c.Owner, c.Repo = owner, name
	}
	if _, err := strconv.ParseInt(c.RunID, 10, 64); c.RunID != "" && err != nil {
		return c, fmt.Errorf("GITHUB_RUN_ID %q is not a number", c.RunID)
	}
	if c.EventPath == "" {
		if c.IsActions && (c.IsPullRequest() || c.EventName == "workflow_run") {
			return c, fmt.Errorf("GITHUB_EVENT_PATH is unset for a %s event: cannot find the pull request", c.EventName)
		}
		return c, nil
	}
	err := applyEvent(&c)
	return c, err
}
