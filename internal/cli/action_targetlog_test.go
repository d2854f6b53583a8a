package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/ci/citest"
	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// The Action's step on a pull request, run in process (Main) with the
// environment the composite step gives it (action.yml's input mapping, a
// runner's GITHUB_* variables and files), a fake GitHub API passed in
// through GITHUB_API_URL, and targets tailgate starts itself (this test
// binary's demo-serve): the target logs reach every report and the
// target_log output, and a value the benchmark reads with {{env}} is
// registered with the runner's masks once, before anything could print
// it, and appears nowhere else.

// apiKey is the secret the benchmarks below read with {{env}}.
const apiKey = "k3y-e2e-Zq81-do-not-print"

// stepLog is the job log as the runner reads it: stdout and stderr in the
// order they were written, and each stream apart.
type stepLog struct {
	mu                     sync.Mutex
	merged, stdout, stderr bytes.Buffer
}

type stepStream struct {
	l   *stepLog
	own *bytes.Buffer
}

func (s stepStream) Write(p []byte) (int, error) {
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	s.l.merged.Write(p)
	return s.own.Write(p)
}

// actionStep is one run of the step and what it left.
type actionStep struct {
	code    int
	log     *stepLog
	outputs map[string]string
	output  string // the GITHUB_OUTPUT file
	summary string // the GITHUB_STEP_SUMMARY file
}

// runActionStep runs `tailgate action` on a pull_request event with
// inputs set (action.yml's defaults otherwise) and extra variables.
func runActionStep(t *testing.T, fake *ghtest.Server, inputs, extra map[string]string) actionStep {
	t.Helper()
	return runActionStepIn(t, t.TempDir(), fake, inputs, extra)
}

// runActionStepIn is runActionStep with the runner's temporary directory
// (RUNNER_TEMP, holding the command files) given.
func runActionStepIn(t *testing.T, files string, fake *ghtest.Server, inputs, extra map[string]string) actionStep {
	t.Helper()
	output, summary := filepath.Join(files, "set_output"), filepath.Join(files, "step_summary")
	vars := append(runnerEnv(t, files, fake.URL()), "GITHUB_EVENT_NAME=pull_request",
		"GITHUB_EVENT_PATH="+writeEvent(t, "pull_request.json", nil), "GITHUB_REF=refs/pull/7/merge",
		"GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=faster-orders", "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary)
	vars = append(vars, actionInputEnv(t, inputs)...)
	env := map[string]string{}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	l := &stepLog{}
	code := Main([]string{"action"}, stepStream{l, &l.stdout}, stepStream{l, &l.stderr}, func(k string) string { return env[k] })
	outData, _ := os.ReadFile(output)
	sumData, _ := os.ReadFile(summary)
	return actionStep{code: code, log: l, outputs: parseOutputFile(t, string(outData)), output: string(outData), summary: string(sumData)}
}

// demoTarget is a target section (its keys, indented) that starts this
// test binary's demo service on a free loopback port.
func demoTarget(t *testing.T, indent string) string {
	addr := targettest.FreeAddr(t)
	return indent + `url: http://` + addr + "\n" +
		indent + `start: {command: '"$DEMO" demo-serve --addr ` + addr + `', env: {DEMO: "` + targettest.Executable(t) + `"}}` + "\n" +
		indent + "ready: {path: /health, timeout: 20s, interval: 20ms}\n"
}

const secretScenario = `scenarios:
  - steps:
      - {name: count, path: /count, headers: {X-Api-Key: '{{env "TAILGATE_E2E_KEY"}}'}}
`

// wantMaskedOnce checks that the job log registers key with the runner
// exactly once, before the key appears anywhere else in the log.
func wantMaskedOnce(t *testing.T, log *stepLog, key string) {
	t.Helper()
	mask := "::add-mask::" + key + "\n"
	if n := strings.Count(log.stdout.String(), mask); n != 1 {
		t.Errorf("::add-mask:: of the {{env}} value issued %d times, want once:\n%s", n, log.stdout.String())
	}
	merged := log.merged.String()
	if first, at := strings.Index(merged, key), strings.Index(merged, mask); first != at+len("::add-mask::") {
		t.Errorf("the value is in the log (byte %d) before its mask (byte %d):\n%s", first, at, merged)
	}
	for _, c := range citest.Commands(merged) {
		if c.Name == "add-mask" && c.Data != key && c.Data != e2eToken {
			t.Errorf("a mask of something else: %q", c.Text)
		}
	}
}

// wantOnlyInMask checks that key is in no text but its mask command.
func wantOnlyInMask(t *testing.T, key string, texts map[string]string) {
	t.Helper()
	for name, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, key) && line != "::add-mask::"+key {
				t.Errorf("%s shows the secret: %q", name, clip(line))
			}
		}
	}
}

// benchFile writes the benchmark e2e (body, then secretScenario) into a
// new directory and returns the directory and the file.
func benchFile(t *testing.T, body string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "tailgate.yml")
	mustWriteFile(t, path, "name: e2e\n"+body+secretScenario)
	return dir, path
}

func TestActionReportsTheTargetLogAndMasksEnvValues(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	dir, cfg := benchFile(t, "target:\n"+demoTarget(t, "  ")+"load: {model: closed, vus: 1, warmup: 0s, duration: 300ms, runs: 2}\n")

	step := runActionStep(t, fake, map[string]string{"config": cfg, "baseline": filepath.Join(dir, "baseline.json"),
		"baseline_from": "workspace"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code != ExitPass {
		t.Fatalf("exit %d\n%s", step.code, step.log.merged.String())
	}

	// The target log: one file in RUNNER_TEMP holding the service's own output.
	path := step.outputs["target_log"]
	if strings.Contains(path, "\n") || filepath.Dir(path) != filepath.Dir(step.outputs["report_path"]) {
		t.Fatalf("target_log output %q: want one file beside the report %s", path, step.outputs["report_path"])
	}
	if log, err := os.ReadFile(path); err != nil || !strings.Contains(string(log), "demo service on http://") {
		t.Errorf("target log %s: %v %q", path, err, log)
	}
	if rep := readReportOutput(t, e2eResult{outputs: step.outputs}); rep.TargetLog != (report.TargetLogs{Head: path}) {
		t.Errorf("report.json: target log %+v, want head %s", rep.TargetLog, path)
	}
	note := "The output of the target tailgate started is in " + path
	if shown, _ := inerttest.ShownText(step.summary); !strings.Contains(shown, note) {
		t.Errorf("the job summary does not name the target log:\n%s", step.summary)
	}
	// A reader of the PR cannot open a file on the runner: the comment
	// leaves the path out.
	comment := wantOneSticky(t, fake, "tailgate · e2e:")
	if strings.Contains(comment, filepath.Base(path)) {
		t.Errorf("the sticky comment names the runner-local target log:\n%s", comment)
	}
	html, err := os.ReadFile(step.outputs["html_path"])
	if err != nil || !strings.Contains(string(html), path) {
		t.Errorf("the HTML report does not name the target log (%v)", err)
	}
	if !strings.Contains(step.log.stdout.String(), note) {
		t.Errorf("the terminal report does not name the target log:\n%s", step.log.stdout.String())
	}

	// The {{env}} value: masked once, before the first run, and nowhere else.
	wantMaskedOnce(t, step.log, apiKey)
	if mask, run := strings.Index(step.log.merged.String(), "::add-mask::"+apiKey), strings.Index(step.log.merged.String(), "::group::run 1 of 2"); run < 0 || mask > run {
		t.Errorf("the mask (byte %d) does not precede the first run (byte %d)", mask, run)
	}
	texts := map[string]string{"stdout": step.log.stdout.String(), "stderr": step.log.stderr.String(),
		"GITHUB_OUTPUT": step.output, "job summary": step.summary, "html": string(html), "comment": comment}
	for _, out := range []string{"report_path", "target_log"} {
		texts[out] = string(mustReadFile(t, step.outputs[out]))
	}
	wantOnlyInMask(t, apiKey, texts)
}

// A target that prints the value and dies shows its last lines in the
// log: the runner hides the value there, since its mask came first.
func TestActionMasksEnvValuesBeforeTheTargetStarts(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	_, cfg := benchFile(t, `target:
  url: http://`+targettest.FreeAddr(t)+`
  start: {command: 'echo "starting with key $LEAK"; exit 1', env: {LEAK: "`+apiKey+`"}}
  ready: {path: /health, timeout: 20s}
load: {model: closed, vus: 1, warmup: 0s, duration: 300ms, runs: 1}
`)
	step := runActionStep(t, fake, map[string]string{"config": cfg, "baseline_from": "workspace", "comment": "never"},
		map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code != ExitRuntime || !strings.Contains(step.log.stderr.String(), "starting with key "+apiKey) {
		t.Fatalf("exit %d, want 3 with the target's last line on stderr:\n%s", step.code, step.log.merged.String())
	}
	wantMaskedOnce(t, step.log, apiKey)
	if step.outputs["verdict"] != "error" || step.outputs["target_log"] != "" {
		t.Errorf("outputs %v: want verdict error and no target_log", step.outputs)
	}
}

// In mode ab with both sides started by tailgate, target_log holds the
// base's log then the head's, one a line, as upload-artifact takes them.
func TestActionABNamesBothTargetLogs(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	dir, cfg := benchFile(t, "target:\n"+demoTarget(t, "  ")+
		"ab:\n  base:\n"+demoTarget(t, "    ")+"  head:\n"+demoTarget(t, "    ")+"  min_blocks: 3\n  max_blocks: 3\n"+
		"load: {model: closed, vus: 1, warmup: 0s, duration: 200ms}\n")
	step := runActionStep(t, fake, map[string]string{"config": cfg, "mode": "ab", "baseline": filepath.Join(dir, "none.json"),
		"baseline_from": "workspace", "comment": "never", "fail_on_regression": "false"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code != ExitPass {
		t.Fatalf("exit %d\n%s", step.code, step.log.merged.String())
	}
	logs := strings.Split(step.outputs["target_log"], "\n")
	if len(logs) != 2 || !strings.Contains(logs[0], "-target-base-") || !strings.Contains(logs[1], "-target-head-") {
		t.Fatalf("target_log output %q: want the base's log, then the head's", step.outputs["target_log"])
	}
	for _, path := range logs {
		if log, err := os.ReadFile(path); err != nil || strings.Count(string(log), "demo service on http://") != 3 {
			t.Errorf("target log %s: %v; want the service's start line once per block:\n%s", path, err, log)
		}
	}
	if rep := readReportOutput(t, e2eResult{outputs: step.outputs}); rep.TargetLog != (report.TargetLogs{Base: logs[0], Head: logs[1]}) {
		t.Errorf("report.json: target logs %+v, want %q", rep.TargetLog, logs)
	}
	wantMaskedOnce(t, step.log, apiKey)
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
