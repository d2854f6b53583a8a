package runner

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// tlsBench is a benchmark of an https target on loopback; %TLS% is its
// tls section.
const tlsBench = `
target:
  url: %URL%
  ready: {path: /health, timeout: 1s}
  %TLS%
dataset:
  reset: {request: {method: POST, path: /reset}}
load: {model: closed, vus: 2, warmup: 0s, duration: 200ms, runs: 2}
scenarios: [{steps: [{path: /items, expect: {ok: true}}]}]
`

// An https target whose certificate a CA file vouches for is reached by
// every part of the run (the readiness probe, the reset, the load, with
// either client); without the CA file, the run stops at the probe.
func TestHTTPSTargetWithACAFile(t *testing.T) {
	t.Parallel()
	var plain, resets atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			plain.Add(1)
		}
		if r.URL.Path == "/reset" {
			resets.Add(1)
		}
		w.Write([]byte(`{"ok": true}`))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes below are expected
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(tls, client string) *config.Config {
		t.Helper()
		src := strings.NewReplacer("%URL%", srv.URL, "%TLS%", tls).Replace(tlsBench)
		cfg, err := config.Parse(filepath.Join(dir, "bench.yml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Load.Client = client
		return cfg
	}
	for _, client := range []string{config.ClientFast, config.ClientNetHTTP} {
		res, err := (&Benchmark{Config: parse("tls: {ca_file: ca.pem}", client)}).Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		for _, r := range res.Runs {
			if r.Requests.Total == 0 || r.Requests.Failed != 0 {
				t.Errorf("%s run %d: requests %+v errors %+v, want all to pass over TLS", client, r.Index, r.Requests, r.Errors)
			}
		}
	}
	if resets.Load() != 4 || plain.Load() != 0 {
		t.Errorf("%d resets, %d requests without TLS; want 4 and 0", resets.Load(), plain.Load())
	}
	_, err := (&Benchmark{Config: parse("", "")}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA file: %v, want the probe refused for its certificate", err)
	}
}

// A remote target's CPU and memory are not measured, and each run says
// why. (The target here is on loopback; remote is set as the config would
// set it for a target elsewhere: no test sends traffic off this machine.)
func TestRemoteTargetRunsSayResourcesAreNotMeasured(t *testing.T) {
	t.Parallel()
	svc := newService(t)
	cfg := benchConfig(svc.URL, 1)
	cfg.Target.Remote = true
	res, err := (&Benchmark{Config: cfg}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if r.Resources != nil || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "CPU and memory not measured: the target is remote") }) {
		t.Errorf("resources %+v notes %q; want none measured, and a note saying why", r.Resources, r.Notes)
	}
	if _, ok := r.Metrics[result.CPUPerIteration]; ok {
		t.Errorf("metrics %v hold CPU per iteration for a remote target", r.Metrics)
	}
}
