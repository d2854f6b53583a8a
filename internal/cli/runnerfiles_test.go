package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// The head's service, a real child process started by tailgate, tries to
// append to the runner's command files as a PR's code can (it finds them
// beside GITHUB_EVENT_PATH): a forged verdict=pass followed by an
// unterminated heredoc that would swallow tailgate's own verdict line,
// and a forged "pass" job summary. The head is 10× slower than the base,
// so the true verdict is a regression: the runner still reads
// verdict=regression and the summary is tailgate's alone. In mode ab the
// sides are sealed, so the files' directory is hidden from the child and
// its writes never arrive (the report says the sides were sealed); where
// a child does reach them (a check, which runs one side unsealed), the
// step restores them and fails (the next test).
func TestActionChildCannotForgeTheRunnersFiles(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	files := t.TempDir()
	output, summary := filepath.Join(files, "set_output"), filepath.Join(files, "step_summary")
	exe := targettest.Executable(t)
	base, head := targettest.FreeAddr(t), targettest.FreeAddr(t)
	attack := filepath.Join(t.TempDir(), "serve.sh")
	mustWriteFile(t, attack, `printf 'verdict=pass\nregressions=0\nforged<<EOF\n' >> "$OUT"
printf '## tailgate: pass ✅\n' >> "$SUM"
exec "$DEMO" demo-serve --addr `+head+` --work 2000 --slowdown 900%
`)
	dir, cfg := benchFile(t, "target:\n  url: http://"+head+"\n"+`ab:
  base:
    url: http://`+base+`
    start: {command: ['`+exe+`', demo-serve, --addr, `+base+`, --work, "2000"]}
    ready: {path: /health, timeout: 20s, interval: 20ms}
  head:
    url: http://`+head+`
    start: {command: [sh, '`+attack+`'], env: {DEMO: "`+exe+`", OUT: "`+output+`", SUM: "`+summary+`"}}
    ready: {path: /health, timeout: 20s, interval: 20ms}
  min_blocks: 4
  max_blocks: 6
load: {model: closed, vus: 1, warmup: 0s, duration: 300ms}
gate: {metrics: [latency_p95_ms]}
`)
	step := runActionStepIn(t, files, fake, map[string]string{"config": cfg, "mode": "ab", "baseline": filepath.Join(dir, "none.json"),
		"baseline_from": "workspace", "comment": "never"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code == ExitRuntime && strings.Contains(step.log.stderr.String(), "cannot be sealed off from each other") {
		t.Skipf("this machine cannot seal the sides, and the job failed closed as it must")
	}
	if step.code != ExitRegression {
		t.Fatalf("exit %d, want 1 (the head is 10× slower)\n%s", step.code, step.log.merged.String())
	}
	if step.outputs["verdict"] != "regression" || step.outputs["regressions"] != "1" {
		t.Errorf("the runner reads verdict=%q regressions=%q, want regression 1; GITHUB_OUTPUT:\n%s",
			step.outputs["verdict"], step.outputs["regressions"], step.output)
	}
	for _, forged := range []string{"verdict=pass", "forged<<EOF", "regressions=0"} {
		if strings.Contains(step.output, forged) {
			t.Errorf("GITHUB_OUTPUT still holds the child's %q:\n%s", forged, step.output)
		}
	}
	if strings.Contains(step.summary, "## tailgate: pass") || !strings.Contains(step.summary, "regression") {
		t.Errorf("the job summary holds the child's forged pass or lacks the regression:\n%s", step.summary)
	}
	if !strings.Contains(step.log.stdout.String(), "the sides were sealed off from each other") {
		t.Errorf("the report does not say the sides were sealed:\n%s", step.log.stdout.String())
	}
}

// A verdict that would pass does not: the step whose child wrote the
// runner's files ends with exit 3 and verdict=error, naming the files.
func TestActionChildWritingTheRunnersFilesFailsAPass(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	files := t.TempDir()
	output := filepath.Join(files, "set_output")
	exe := targettest.Executable(t)
	addr := targettest.FreeAddr(t)
	attack := filepath.Join(t.TempDir(), "serve.sh")
	mustWriteFile(t, attack, `printf 'verdict=pass\n' >> "$OUT"
exec "$DEMO" demo-serve --addr `+addr+`
`)
	dir, cfg := benchFile(t, "target:\n  url: http://"+addr+"\n  start: {command: [sh, '"+attack+"'], env: {DEMO: \""+exe+"\", OUT: \""+output+"\"}}\n"+
		"  ready: {path: /health, timeout: 20s, interval: 20ms}\nload: {model: closed, vus: 1, warmup: 0s, duration: 200ms, runs: 2}\n")
	step := runActionStepIn(t, files, fake, map[string]string{"config": cfg, "baseline": filepath.Join(dir, "baseline.json"),
		"baseline_from": "workspace", "comment": "never"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code != ExitRuntime {
		t.Fatalf("exit %d, want 3\n%s", step.code, step.log.merged.String())
	}
	if step.outputs["verdict"] != "error" || strings.Count(step.output, "verdict=pass") != 0 {
		t.Errorf("outputs %q, want verdict=error and no forged pass; GITHUB_OUTPUT:\n%s", step.outputs, step.output)
	}
	if !strings.Contains(step.log.stderr.String(), "GITHUB_OUTPUT changed since tailgate started its first child") {
		t.Errorf("stderr does not say what happened:\n%s", step.log.stderr.String())
	}
}
