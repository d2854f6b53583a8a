package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The PR's build (a real child, run before any block) rewrites the noise
// file with a forged entry, as a PR's code can. The job read the file
// before the build ran: it pools nothing forged, and writes back what it
// read with its own job added, so the forged entry is gone.
func TestABReadsTheNoiseFileBeforeThePRsBuild(t *testing.T) {
	t.Parallel()
	fake := newE2EGitHub(t)
	dir := t.TempDir()
	noise := filepath.Join(dir, "noise.json")
	forge := filepath.Join(dir, "build.sh")
	mustWriteFile(t, forge, `printf '{"schema":1,"entries":[{"benchmark":"forged","definition_hash":"x","fingerprint":"x","design":"x","jobs":[]}]}' > '`+noise+`'
`)
	_, cfg := benchFile(t, "target:\n"+demoTarget(t, "  ")+
		"build: {command: [sh, '"+forge+"']}\n"+
		"ab:\n  base:\n"+demoTarget(t, "    ")+"  head:\n"+demoTarget(t, "    ")+
		"  windows: 2\n  window: 200ms\n  min_blocks: 3\n  max_blocks: 3\n  noise: '"+noise+"'\n"+
		"load: {model: closed, vus: 1, warmup: 0s, duration: 200ms}\n")
	step := runActionStep(t, fake, map[string]string{"config": cfg, "mode": "ab", "baseline": filepath.Join(dir, "none.json"),
		"baseline_from": "workspace", "comment": "never", "fail_on_regression": "false"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
	if step.code != ExitPass {
		t.Fatalf("exit %d\n%s", step.code, step.log.merged.String())
	}
	kept, err := os.ReadFile(noise)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(kept), "forged") || !strings.Contains(string(kept), `"benchmark":"e2e"`) {
		t.Errorf("the noise file after the job holds the build's forged entry, or not this job's:\n%s", kept)
	}
	if !strings.Contains(step.log.stdout.String(), "had no earlier job of this benchmark") {
		t.Errorf("the report does not say the file held no earlier job:\n%s", step.log.stdout.String())
	}
}
