package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// cannedTransport answers every request in memory, so a benchmark measures
// the generator's own work per request (building, checking, counting),
// plus the three allocations of the canned response itself.
type cannedTransport struct{ body string }

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(c.body)), Request: req}, nil
}

var benchScenarios = map[string]config.Scenario{
	"static-get": oneStep("get", "/items/1"),
	"templated-post-expect-save": {Name: "create", Steps: []config.Step{{
		Name:    "create",
		Request: config.Request{Method: "POST", Path: "/items/{{seq}}", JSON: map[string]any{"title": "t-{{randString 8}}", "n": 1}},
		Expect:  map[string]any{"state": "open"},
		Save:    map[string]string{"id": "id"},
	}}},
}

func benchWorker(b *testing.B, sc config.Scenario, client *http.Client, url string) (*engine, *worker) {
	b.Helper()
	p := compile(b, 1, sc)
	opt := openOpts(1, 1, 0, time.Second)
	opt.HTTPClient = client
	e, workers, err := newEngine(p, url, opt)
	if err != nil {
		b.Fatal(err)
	}
	e.hard, e.cancelHard = context.WithCancelCause(context.Background())
	b.Cleanup(func() { e.cancelHard(nil) })
	b.Cleanup(e.transport.close)
	b.Cleanup(workers[0].begin(e.hard))
	return e, workers[0]
}

// BenchmarkGeneratorOverhead is the generator's cost per request without a
// network: the figure that must stay far below a real round trip.
func BenchmarkGeneratorOverhead(b *testing.B) {
	client := &http.Client{Transport: cannedTransport{body: `{"id":"x-1","state":"open"}`}}
	for name, sc := range benchScenarios {
		b.Run(name, func(b *testing.B) {
			_, w := benchWorker(b, sc, client, "http://127.0.0.1:1")
			b.ReportAllocs()
			origin := time.Now()
			for i := 0; b.Loop(); i++ {
				w.iterate(uint64(i), origin, true)
			}
			if w.its.Succeeded != w.its.Started {
				b.Fatalf("iterations %+v: the benchmark must measure the success path", w.its)
			}
		})
	}
}

// BenchmarkLoopbackRequest is one whole request to an in-process server
// over loopback (the server's own cost included), sent the way a run sends
// it: through the engine's own client.
func BenchmarkLoopbackRequest(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"x-1","state":"open"}`))
	}))
	defer srv.Close()
	_, w := benchWorker(b, benchScenarios["static-get"], nil, srv.URL)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.iterate(uint64(i), time.Now(), true)
	}
	if w.its.Succeeded != w.its.Started {
		b.Fatalf("iterations %+v", w.its)
	}
}
