package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

// The Action's creep_since (docs/history.md, spans) end to end: a push to
// main in mode record with chain: true and creep_since a tag two commits
// back appends the absolute job, the link (the pushed commit against its
// parent) and a span (against the tag, job id …/ab-span), each A/B's base
// the commit it names.
func TestActionRecordChainCreepSinceAppendsASpan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts services for every run")
	}
	t.Parallel()
	repo, base, head := prRepo(t)
	gitRun(t, repo, "tag", "v1", base)
	mustWrite(t, filepath.Join(repo, "version"), "3\n")
	gitRun(t, repo, "commit", "-q", "-am", "third")
	third := gitRun(t, repo, "rev-parse", "HEAD")
	env := actionEnv(t, t.TempDir(), "tailgate.yml", "baselines/pr.json")
	event := filepath.Join(t.TempDir(), "event.json")
	mustWrite(t, event, `{"ref": "refs/heads/main", "before": "`+head+`", "after": "`+third+`"}`)
	env["GITHUB_EVENT_PATH"], env["GITHUB_SHA"] = event, third
	env["INPUT_MODE"], env["INPUT_CHAIN"], env["INPUT_CREEP_SINCE"], env["INPUT_WORKING_DIRECTORY"] = "record", "true", "v1", "."
	env["XDG_CACHE_HOME"] = t.TempDir()
	var vars []string
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	o := tailgateIn(t, repo, vars, "action")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "appended the A/B of "+third[:12]+" against its parent "+head[:12],
		"appended the A/B of "+third[:12]+" against an earlier point of main's chain than its last link (a span")
	h, err := baseline.ReadHistory(filepath.Join(repo, "baselines", "pr.history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != 3 || h.Jobs[0].AB != nil || h.Jobs[1].AB == nil || h.Jobs[1].AB.Parent != head || h.Jobs[1].Job != "1234-1/ab" ||
		h.Jobs[2].AB == nil || h.Jobs[2].AB.Parent != base || h.Jobs[2].Job != "1234-1/ab-span" {
		for _, j := range h.Jobs {
			t.Logf("%s %s %+v", j.Job, j.Commit, j.AB)
		}
		t.Fatalf("want the absolute job, the link against %s and the span against v1 (%s)", head, base)
	}
	// The span is not a link: the chain holds one commit.
	o = tailgateIn(t, repo, nil, "history", "--history", filepath.Join(repo, "baselines", "pr.history.jsonl"))
	if o.code != 0 && o.code != 1 {
		t.Fatalf("tailgate history: %s", o)
	}
	wantContains(t, "history", o.stdout, "A/B chain of main: 1 commit,")
	// --since v1, older than the chain's one link, answers from the span
	// measured from v1 (it exited 2 before: no link holds v1).
	o = tailgateIn(t, repo, nil, "history", "--history", filepath.Join(repo, "baselines", "pr.history.jsonl"), "--since", "v1")
	if o.code != 0 && o.code != 1 {
		t.Fatalf("tailgate history --since v1: %s", o)
	}
	if strings.Contains(o.stdout, "creep since") {
		wantContains(t, "history --since v1", o.stdout, "creep since v1", "against "+base[:12])
	}
}
