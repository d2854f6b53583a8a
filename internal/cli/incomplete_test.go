package cli

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// An A/B job whose gated CPU per iteration one side measured and the
// other lost (here the base runs outside tailgate, so no block has its
// CPU) ends with exit 3 and the reason, naming the metric and the side,
// not with an inconclusive pass; the base commit's ab.allow_missing: true
// accepts it as inconclusive (exit 0).
func TestABLostFigureIsARuntimeFailure(t *testing.T) {
	t.Parallel()
	base := targettest.FreeAddr(t)
	svc := exec.Command(targettest.Executable(t), "demo-serve", "--addr", base)
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Process.Kill(); svc.Wait() })
	waitUp(t, "http://"+base+"/health")

	for _, allow := range []bool{false, true} {
		fake := newE2EGitHub(t)
		dir, cfg := benchFile(t, "target:\n  url: 'http://"+base+"'\n  ready: {path: /health, timeout: 20s, interval: 20ms}\n"+
			"ab:\n  base: {url: 'http://"+base+"'}\n  head:\n"+demoTarget(t, "    ")+
			"  windows: 2\n  window: 200ms\n  min_blocks: 3\n  max_blocks: 3\n  noise: 'off'\n"+
			"  allow_missing: "+map[bool]string{false: "false", true: "true"}[allow]+"\n"+
			"load: {model: closed, vus: 1, warmup: 0s, duration: 200ms}\n"+
			"gate: {metrics: [cpu_ms_per_iteration, request_error_pct]}\n")
		step := runActionStep(t, fake, map[string]string{"config": cfg, "mode": "ab", "baseline": filepath.Join(dir, "none.json"),
			"baseline_from": "workspace", "comment": "never"}, map[string]string{"TAILGATE_E2E_KEY": apiKey})
		log := step.log.merged.String()
		if !allow {
			if step.code != ExitRuntime || step.outputs["verdict"] != "error" {
				t.Fatalf("exit %d, verdict %q; want 3 and error\n%s", step.code, step.outputs["verdict"], log)
			}
			if !strings.Contains(step.log.stderr.String(), "incomplete comparison, not a pass: one side measured and the other lost CPU/iteration (base lacks it in every block)") {
				t.Errorf("stderr does not give the reason:\n%s", step.log.stderr.String())
			}
			continue
		}
		if step.code != ExitPass || step.outputs["verdict"] == "error" || step.outputs["verdict"] == "pass" {
			t.Errorf("allow_missing: exit %d verdict %q, want 0 and inconclusive or regression\n%s", step.code, step.outputs["verdict"], log)
		}
	}
}

func waitUp(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
	}
	t.Fatalf("%s did not come up", url)
}
