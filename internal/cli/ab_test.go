package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// abConfig turns the test benchmark into an A/B one: base and head are two
// services, runs per side as given.
func abConfig(t *testing.T, dir, baseURL, headURL string, runs int) string {
	t.Helper()
	cfg := benchConfig("items", baseURL, 0)
	cfg = strings.Replace(cfg, "target:\n  url: "+baseURL+"\n", "ab:\n  base: {url: \""+baseURL+"\"}\n  head: {url: \""+headURL+"\"}\ntarget:\n  url: "+baseURL+"\n", 1)
	cfg = strings.Replace(cfg, "  runs: 2\n", "  runs: "+strconv.Itoa(runs)+"\n", 1)
	path := filepath.Join(dir, "ab.yml")
	mustWrite(t, path, cfg)
	return path
}

func TestABCommandJudgesPairs(t *testing.T) {
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 5)
	rep := filepath.Join(dir, "r.json")
	o := tailgate(t, "ab", "-c", cfg, "-q", "--report", rep)
	if o.code != 0 && o.code != 1 {
		t.Fatalf("exit %d, want a verdict (0 or 1):\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	wantContains(t, "stdout", o.stdout, "order of runs (A = base, B = head): A B B A A B B A A B")
	wantContains(t, "stdout", o.stdout, "wilcoxon signed-rank exact (pairs)")
	wantContains(t, "stdout", o.stdout, "this job")
	if _, err := os.Stat(rep); err != nil {
		t.Errorf("no report: %v", err)
	}
}

func TestABCommandNeedsAnABSection(t *testing.T) {
	t.Parallel()
	svc := newItemService(t, 3)
	dir := t.TempDir()
	o := tailgate(t, "ab", "-c", writeBenchConfig(t, dir, "items", svc.URL, 0))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "has no ab: section")
}

func TestActionModeAB(t *testing.T) {
	base, head := newItemService(t, 3), newItemService(t, 3)
	dir := t.TempDir()
	cfg := abConfig(t, dir, base.URL, head.URL, 5)
	env := actionEnv(t, dir, cfg, filepath.Join(dir, "b.json"))
	env["INPUT_MODE"] = "ab"
	o := tailgateEnv(t, env, "action")
	if o.code != 0 && o.code != 1 {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	outputs, err := os.ReadFile(env["GITHUB_OUTPUT"])
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "outputs", string(outputs), "verdict")
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	wantContains(t, "summary", string(summary), "mode ab")
}
