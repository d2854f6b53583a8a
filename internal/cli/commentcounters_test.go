package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// The fork-PR workflow end to end for a benchmark with target.counters:
// tailgate action (a started target, a counter source run as a command)
// writes a report with counter.* and part.* keys and /iteration units,
// and tailgate comment, given that report as the workflow_run publisher
// is, posts it instead of refusing it.
func TestCommentPostsTheReportOfABenchmarkWithCounters(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	state := filepath.Join(t.TempDir(), "calls")
	counter := `n=$(cat '` + state + `' 2>/dev/null || echo 0); n=$((n+120)); echo $n > '` + state + `'; printf '{"calls": %d, "Rows_Read": %d}' $n $((n*3))`
	dir, cfg := benchFile(t, "target:\n"+demoTarget(t, "  ")+
		"  counters:\n    - {name: app, command: [sh, -c, '"+strings.ReplaceAll(counter, "'", "''")+"'], gate: [calls]}\n"+
		"load: {model: closed, vus: 1, warmup: 0s, duration: 300ms, runs: 2}\n")
	step := runActionStep(t, fake, map[string]string{"config": cfg, "baseline": filepath.Join(dir, "baseline.json"),
		"baseline_from": "workspace", "comment": "never"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code != ExitPass {
		t.Fatalf("action: exit %d\n%s", step.code, step.log.merged.String())
	}
	report := string(mustReadFile(t, step.outputs["report_path"]))
	for _, want := range []string{`"counter.app.calls"`, `"counter.app.Rows_Read"`, `"/iteration"`, `"part.target.`} {
		if !strings.Contains(report, want) {
			t.Errorf("the action's report lacks %s: the test does not cover it", want)
		}
	}

	env := map[string]string{}
	for _, kv := range commentEnv(t, fake, writeEvent(t, "workflow_run.json", nil)) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"comment", "--report", step.outputs["report_path"], "--pr", "7"}, &stdout, &stderr, func(k string) string { return env[k] })
	if code != ExitPass {
		t.Fatalf("comment refuses the action's report: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	body := wantOneSticky(t, fake, "tailgate · e2e")
	if !strings.Contains(body, "app calls") {
		t.Errorf("the comment does not show the counter:\n%s", body)
	}
}
