package target

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// startDemoProcess runs the demo service as a real child process.
func startDemoProcess(t *testing.T, slowdown string) (*Process, string) {
	t.Helper()
	addr := freeAddr(t)
	tgt := config.Target{
		Start: &config.Start{
			Command: config.Command{Args: []string{testExe(t), "-test.run=^$"}},
			Env:     map[string]string{demoAddrEnv: addr, demoSlowdownEnv: slowdown},
		},
		Ready: &config.Ready{Path: "/health", Timeout: config.Duration(20 * time.Second)},
	}
	p, err := Start(context.Background(), "http://"+addr, tgt, StartOptions{Children: supervised(t)})
	if err != nil {
		t.Fatalf("Start demo: %v", err)
	}
	t.Cleanup(func() { p.Stop() })
	return p, "http://" + addr
}

// lifecycle runs CREATE → ASSIGN → RESOLVE → SEARCH once.
func lifecycle(t *testing.T, c *http.Client, base string) {
	t.Helper()
	call := func(method, path, body string) []byte {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s = %d %s", method, path, resp.StatusCode, out)
		}
		return out
	}
	var created struct{ ID string }
	json.Unmarshal(call("POST", "/complaints", `{"title":"t","body":"b"}`), &created)
	call("POST", "/complaints/"+created.ID+"/assign", `{"assignee":"a"}`)
	call("POST", "/complaints/"+created.ID+"/resolve", "")
	call("GET", "/complaints/search?q="+created.ID, "")
}

// cpuPerLifecycle samples the demo process while n lifecycles run.
func cpuPerLifecycle(t *testing.T, slowdown string, n int) float64 {
	p, base := startDemoProcess(t, slowdown)
	c := &http.Client{Timeout: 5 * time.Second}
	lifecycle(t, c, base) // warm the connection and the handlers
	s := StartSampler(p.PID(), 50*time.Millisecond)
	for i := 0; i < n; i++ {
		lifecycle(t, c, base)
	}
	res, err := s.Stop()
	if err != nil {
		t.Fatalf("sampler: %v", err)
	}
	if res.PeakRSSBytes <= 0 {
		t.Errorf("peak RSS of the demo process = %d, want > 0", res.PeakRSSBytes)
	}
	return res.CPUSeconds * 1000 / float64(n)
}

// Not parallel: it keeps both cores busy for a while, and runs faster alone
// than slowed down by the others.
func TestSamplerOnTheDemoProcess(t *testing.T) {
	const n = 60
	base := cpuPerLifecycle(t, "0", n)
	slow := cpuPerLifecycle(t, "200%", n)
	t.Logf("demo process CPU per lifecycle: %.3f ms base, %.3f ms with 200%% slowdown", base, slow)
	// 60 lifecycles cost the demo process over a second of CPU (about 22 ms
	// each, measured; 400 took half a minute of both cores for no more
	// certainty): over a hundred clock ticks, so the sampler must see some
	if base <= 0 {
		t.Fatalf("sampler saw no CPU in the demo process over %d lifecycles", n)
	}
	// tripling the hashing (about half of the process's CPU per request,
	// net/http being the rest) must show, with a wide margin for noise
	if slow < base*1.25 {
		t.Errorf("CPU per lifecycle with 200%% slowdown = %.3f ms, base %.3f ms: want ≥ 1.25× base", slow, base)
	}
}
