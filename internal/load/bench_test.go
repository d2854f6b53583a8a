package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// The benchmarks compare the two clients in one run:
//
//	go test -run '^$' -bench . -benchmem ./internal/load
//
// GeneratorOverhead answers in memory (the generator's own work per
// request); Request and Lifecycle go over loopback to a canned server
// that costs next to nothing and allocates nothing per request, so what
// differs between the clients is the client.

const cannedJSON = `{"id":"x-1","state":"open"}`

var benchScenarios = map[string]config.Scenario{
	"static-get": oneStep("get", "/items/1"),
	"templated-post-expect-save": {Name: "create", Steps: []config.Step{{
		Name:    "create",
		Request: config.Request{Method: "POST", Path: "/items/{{seq}}", JSON: map[string]any{"title": "t-{{randString 8}}", "n": 1}},
		Expect:  map[string]any{"state": "open"},
		Save:    map[string]config.SaveFrom{"id": {Name: "id"}},
	}}},
}

// benchWorker returns the single worker of an engine using client, or
// the given net/http client when httpClient is set.
func benchWorker(b *testing.B, sc config.Scenario, client string, httpClient *http.Client, url string) (*engine, *worker) {
	b.Helper()
	p := compile(b, 1, sc)
	opt := openOpts(1, 1, 0, time.Second)
	opt.Client, opt.HTTPClient = client, httpClient
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

// cannedFast is cannedTransport for fasthttp: it writes the request out
// (as the fast client would to its connection) and answers from memory.
type cannedFast struct {
	body []byte
	w    *bufio.Writer
}

var _ fasthttp.RoundTripper = (*cannedFast)(nil)

func (c *cannedFast) RoundTrip(_ *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	_ = req.Write(c.w)
	_ = c.w.Flush()
	resp.SetStatusCode(200)
	resp.SetBodyRaw(c.body)
	return false, nil
}

// BenchmarkGeneratorOverhead is the generator's cost per request without a
// network: the figure that must stay far below a real round trip.
func BenchmarkGeneratorOverhead(b *testing.B) {
	for _, client := range clients {
		for _, name := range []string{"static-get", "templated-post-expect-save"} {
			b.Run(client+"/"+name, func(b *testing.B) {
				var w *worker
				if client == ClientFast {
					var e *engine
					e, w = benchWorker(b, benchScenarios[name], ClientFast, nil, "http://127.0.0.1:1")
					e.transport.(*fastTransport).hc.Transport = &cannedFast{body: []byte(cannedJSON), w: bufio.NewWriter(io.Discard)}
				} else {
					_, w = benchWorker(b, benchScenarios[name], "", &http.Client{Transport: cannedTransport{body: cannedJSON}}, "http://127.0.0.1:1")
				}
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
}

// BenchmarkRequest is one GET over loopback, sent as a run sends it.
func BenchmarkRequest(b *testing.B) {
	url := cannedServer(b, cannedJSON)
	for _, client := range clients {
		b.Run(client, func(b *testing.B) {
			_, w := benchWorker(b, benchScenarios["static-get"], client, nil, url)
			benchIterations(b, w)
		})
	}
}

// BenchmarkLifecycle is one iteration of create → get → resolve over
// loopback: a templated JSON POST whose id is saved and expected back.
func BenchmarkLifecycle(b *testing.B) {
	url := cannedServer(b, `{"id":"it-1","state":"open"}`)
	for _, client := range clients {
		b.Run(client, func(b *testing.B) {
			_, w := benchWorker(b, lifecycle(), client, nil, url)
			benchIterations(b, w)
		})
	}
}

func benchIterations(b *testing.B, w *worker) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.iterate(uint64(i), time.Now(), true)
	}
	if w.its.Succeeded != w.its.Started {
		b.Fatalf("iterations %+v, errors %+v", w.its, w.errs)
	}
}

// cannedServer serves HTTP/1.1 keep-alive on loopback, answering body to
// every request after reading its headers and body. It parses only what
// it must, so that a benchmark's cost is the client's.
func cannedServer(tb testing.TB, body string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { serveCanned(conn, resp) })
		}
	})
	tb.Cleanup(func() { ln.Close(); wg.Wait() })
	return "http://" + ln.Addr().String()
}

func serveCanned(conn net.Conn, resp []byte) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		n, err := readRequest(r)
		if err != nil {
			return
		}
		if _, err := r.Discard(n); err != nil {
			return
		}
		if _, err := conn.Write(resp); err != nil {
			return
		}
	}
}

// readRequest reads a request's header and returns its Content-Length.
func readRequest(r *bufio.Reader) (int, error) {
	n := 0
	for first := true; ; first = false {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if first {
				return 0, errors.New("empty request line")
			}
			return n, nil
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return 0, fmt.Errorf("content-length %q: %w", v, err)
			}
		}
	}
}
