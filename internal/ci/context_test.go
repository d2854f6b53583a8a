package ci

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mapEnv returns a getenv over m.
func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// actionsEnv is the environment of a step in tailgate-ci/shop for event,
// with the payload from testdata/events/<fixture>.
func actionsEnv(event, fixture string) map[string]string {
	return map[string]string{
		"GITHUB_ACTIONS":     "true",
		"GITHUB_EVENT_NAME":  event,
		"GITHUB_EVENT_PATH":  filepath.Join("..", "..", "testdata", "events", fixture),
		"GITHUB_REPOSITORY":  "tailgate-ci/shop",
		"GITHUB_SHA":         "9999999999999999999999999999999999999999",
		"GITHUB_REF":         "refs/pull/42/merge",
		"GITHUB_ACTOR":       "alice",
		"GITHUB_API_URL":     "https://api.github.com",
		"GITHUB_SERVER_URL":  "https://github.com",
		"GITHUB_WORKSPACE":   "/home/runner/work/shop/shop",
		"GITHUB_RUN_ID":      "12004005006",
		"GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_JOB":         "bench",
		"GITHUB_WORKFLOW":    "bench",
	}
}

func TestDetectEvents(t *testing.T) {
	t.Parallel()
	const (
		prHead   = "b7e4c1d2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8"
		prBase   = "3a9c5e7f1b2d4c6e8a0b1c2d3e4f5a6b7c8d9e0f"
		forkHead = "c0ffee0123456789abcdef0123456789abcdef01"
	)
	tests := []struct {
		name, event, fixture string
		env                  map[string]string // overrides
		want                 func(c *Context)  // sets the expected event facts
	}{
		{"pull_request", "pull_request", "pull_request.json", nil, func(c *Context) {
			c.PR, c.PRs, c.BaseSHA, c.BaseRef, c.HeadSHA, c.HeadRef = 42, []int{42}, prBase, "main", prHead, "cache-lookups"
		}},
		{"fork pull_request", "pull_request", "pull_request_fork.json", nil, func(c *Context) {
			c.PR, c.PRs, c.BaseSHA, c.BaseRef, c.HeadSHA, c.HeadRef = 57, []int{57}, prBase, "main", forkHead, "faster-search"
			c.IsFork, c.ReadOnlyToken = true, true
		}},
		{"fork pull_request_target", "pull_request_target", "pull_request_fork.json", nil, func(c *Context) {
			c.PR, c.PRs, c.BaseSHA, c.BaseRef, c.HeadSHA, c.HeadRef = 57, []int{57}, prBase, "main", forkHead, "faster-search"
			c.IsFork = true // the token of pull_request_target can write
		}},
		{"dependabot pull_request", "pull_request", "pull_request.json", map[string]string{"GITHUB_ACTOR": "dependabot[bot]"}, func(c *Context) {
			c.PR, c.PRs, c.BaseSHA, c.BaseRef, c.HeadSHA, c.HeadRef = 42, []int{42}, prBase, "main", prHead, "cache-lookups"
			c.Actor, c.ReadOnlyToken = "dependabot[bot]", true
		}},
		{"push", "push", "push.json", map[string]string{"GITHUB_REF": "refs/heads/main"}, func(c *Context) {
			c.Ref, c.Before, c.HeadSHA = "refs/heads/main", prBase, "d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3"
		}},
		{"workflow_run", "workflow_run", "workflow_run.json", map[string]string{"GITHUB_REF": "refs/heads/main"}, func(c *Context) {
			c.Ref, c.PR, c.PRs, c.BaseSHA, c.BaseRef, c.HeadSHA, c.HeadRef = "refs/heads/main", 42, []int{42}, prBase, "main", prHead, "cache-lookups"
			c.TriggerEvent, c.TriggerRunID, c.TriggerConclusion = "pull_request", 12004005006, "failure"
		}},
		{"workflow_run from a fork", "workflow_run", "workflow_run_fork.json", map[string]string{"GITHUB_REF": "refs/heads/main"}, func(c *Context) {
			c.Ref, c.HeadSHA, c.HeadRef, c.IsFork = "refs/heads/main", forkHead, "faster-search", true
			c.TriggerEvent, c.TriggerRunID, c.TriggerConclusion = "pull_request", 12004005999, "failure"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := actionsEnv(tt.event, tt.fixture)
			for k, v := range tt.env {
				env[k] = v
			}
			got, err := Detect(mapEnv(env))
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			want := Context{
				IsActions: true, EventName: tt.event, EventPath: env["GITHUB_EVENT_PATH"],
				Owner: "tailgate-ci", Repo: "shop", SHA: env["GITHUB_SHA"], Ref: env["GITHUB_REF"],
				Actor: "alice", APIURL: "https://api.github.com", ServerURL: "https://github.com",
				Workspace: "/home/runner/work/shop/shop", RunID: "12004005006", RunAttempt: "1",
				JobID: "bench", Workflow: "bench",
			}
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Detect =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// The API base URL comes from GITHUB_API_URL alone: no other variable can
// redirect where the token is sent.
func TestDetectAPIURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ api, override, want string }{
		{"", "", DefaultAPIURL},
		{"https://ghe.example.com/api/v3", "", "https://ghe.example.com/api/v3"},
		{"https://ghe.example.com/api/v3/", "", "https://ghe.example.com/api/v3"},
		{"https://api.github.com", "http://127.0.0.1:8123/api/v3", "https://api.github.com"},
	} {
		env := map[string]string{"GITHUB_API_URL": tt.api, "TAILGATE_GITHUB_API_URL": tt.override}
		got, err := Detect(mapEnv(env))
		if err != nil || got.APIURL != tt.want {
			t.Errorf("Detect(api %q, TAILGATE_GITHUB_API_URL %q).APIURL = %q, %v; want %q", tt.api, tt.override, got.APIURL, err, tt.want)
		}
	}
}

func TestDetectRunURL(t *testing.T) {
	t.Parallel()
	c, err := Detect(mapEnv(actionsEnv("push", "push.json")))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.RunURL(), "https://github.com/tailgate-ci/shop/actions/runs/12004005006"; got != want {
		t.Errorf("RunURL = %q, want %q", got, want)
	}
	if got := (Context{}).RunURL(); got != "" {
		t.Errorf("RunURL outside Actions = %q, want empty", got)
	}
	if got := c.TriggerRunURL(); got != "" {
		t.Errorf("TriggerRunURL of a push = %q, want empty", got)
	}
	env := actionsEnv("workflow_run", "workflow_run.json")
	env["GITHUB_RUN_ID"] = "777" // this run; the trigger is the payload's
	wr, err := Detect(mapEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wr.TriggerRunURL(), "https://github.com/tailgate-ci/shop/actions/runs/12004005006"; got != want {
		t.Errorf("TriggerRunURL = %q, want %q", got, want)
	}
}

func TestDetectOutsideActions(t *testing.T) {
	t.Parallel()
	c, err := Detect(mapEnv(nil))
	if err != nil {
		t.Fatalf("Detect with an empty environment: %v", err)
	}
	if c.IsActions || c.PR != 0 || c.APIURL != DefaultAPIURL {
		t.Errorf("Detect = %+v, want a local context with the default API", c)
	}
}

func TestDetectErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bad repository", map[string]string{"GITHUB_REPOSITORY": "just-a-name"}, "not owner/name"},
		{"bad run id", map[string]string{"GITHUB_RUN_ID": "12x"}, "GITHUB_RUN_ID"},
		{"missing payload", map[string]string{"GITHUB_EVENT_PATH": filepath.Join(dir, "nope.json")}, "read the event payload"},
		{"invalid payload", map[string]string{"GITHUB_EVENT_PATH": write("bad.json", "{not json")}, "parse the event payload"},
		{"no PR object", map[string]string{"GITHUB_EVENT_PATH": write("push.json", `{"ref":"refs/heads/x"}`)}, "no pull_request object"},
		{"PR number 0", map[string]string{"GITHUB_EVENT_PATH": write("zero.json", `{"pull_request":{"number":0}}`)}, "no pull request number"},
		{"no payload path", map[string]string{"GITHUB_EVENT_PATH": ""}, "GITHUB_EVENT_PATH is unset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := actionsEnv("pull_request", "pull_request.json")
			for k, v := range tt.env {
				env[k] = v
			}
			_, err := Detect(mapEnv(env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Detect err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestDeletedForkCountsAsFork(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "event.json")
	payload := `{"number":9,"pull_request":{"number":9,"head":{"ref":"x","sha":"abc1234","repo":null},
		"base":{"ref":"main","sha":"def5678","repo":{"full_name":"tailgate-ci/shop"}}}}`
	if err := os.WriteFile(p, []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	env := actionsEnv("pull_request", "")
	env["GITHUB_EVENT_PATH"] = p
	c, err := Detect(mapEnv(env))
	if err != nil || !c.IsFork || !c.ReadOnlyToken || c.PR != 9 {
		t.Errorf("Detect = %+v, %v; want a read-only fork PR 9", c, err)
	}
}
