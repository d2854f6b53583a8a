package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// client sends one worker's requests, one at a time, over a connection
// kept alive between them. Each worker owns its client.
type client interface {
	// send sends req and returns its response, whose body stays readable
	// until done.
	send(req *scenario.Request) (scenario.Response, error)
	// done ends the exchange begun by send, whatever its outcome, and
	// reports whether the request ran out of time before.
	done() (expired bool)
	// close releases the client when its worker ends.
	close()
}

// transport makes a run's workers' clients and owns their connections.
type transport interface {
	// client returns a new worker's client; run is cancelled when the
	// worker's requests must stop.
	client(run context.Context) client
	// close closes the connections, those in use too where the transport
	// can: requests in flight then fail at once.
	close()
}

// newTransport picks the client opt asks for: the caller's *http.Client,
// the engine's own net/http client, or the fast one (the default, which
// serves every plan: scenario steps are plain HTTP/1.1 requests).
func newTransport(opt Options, baseURL string) (transport, error) {
	if opt.HTTPClient != nil {
		if opt.Client == ClientFast {
			return nil, errors.New("client fast cannot send through the given net/http client; leave Client empty or set it to nethttp")
		}
		return &netHTTPTransport{do: opt.HTTPClient.Do, timeout: opt.RequestTimeout}, nil
	}
	switch opt.Client {
	case "", ClientFast:
		base, err := url.Parse(baseURL)
		if err != nil {
			return nil, fmt.Errorf("target url %q: %w", baseURL, err)
		}
		return newFastTransport(base, opt.workers(), opt.RequestTimeout, opt.TLS), nil
	case ClientNetHTTP:
		return newNetHTTPTransport(opt), nil
	}
	return nil, fmt.Errorf("client %q: use %q or %q", opt.Client, ClientFast, ClientNetHTTP)
}

// sendFunc sends one request: http.Client.Do, or the engine's own shortcut.
type sendFunc func(*http.Request) (*http.Response, error)

type netHTTPTransport struct {
	do      sendFunc
	tr      *http.Transport // the engine's own; nil for the caller's client
	timeout time.Duration   // of each request
}

// newNetHTTPTransport returns a client tuned for load on one host: no proxy,
// no transparent gzip, keep-alives bounded by the workers, redirects returned
// (a step expects a status), no idle timeout (the run closes them at its end).
func newNetHTTPTransport(opt Options) *netHTTPTransport {
	conns, timeout := opt.workers(), opt.RequestTimeout
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		MaxConnsPerHost:       conns,
		TLSHandshakeTimeout:   timeout,
		TLSClientConfig:       opt.TLS,
		DisableCompression:    true,
		ExpectContinueTimeout: time.Second,
	}
	c := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &netHTTPTransport{do: direct(c, tr), tr: tr, timeout: timeout}
}

func (t *netHTTPTransport) client(run context.Context) client {
	return &netHTTPClient{do: t.do, timer: &requestTimer{parent: run, timeout: t.timeout}}
}

// close closes idle connections; those in use end with their requests.
func (t *netHTTPTransport) close() {
	if t.tr != nil {
		t.tr.CloseIdleConnections()
	}
}

// direct sends through tr itself, not c (four allocations per request
// fewer), errors wrapped as c would; a URL with credentials goes through
// c, which turns them into basic auth.
func direct(c *http.Client, tr *http.Transport) sendFunc {
	return func(req *http.Request) (*http.Response, error) {
		if req.URL.User != nil {
			return c.Do(req)
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return nil, &url.Error{Op: errorOp(req.Method), URL: req.URL.Redacted(), Err: err}
		}
		return resp, nil
	}
}

// netHTTPClient bounds each request, body included, with a requestTimer.
type netHTTPClient struct {
	do    sendFunc
	timer *requestTimer
	resp  *http.Response // of the exchange in progress
}

func (c *netHTTPClient) send(r *scenario.Request) (scenario.Response, error) {
	req, err := r.HTTP(c.timer.start())
	if err != nil {
		return scenario.Response{}, err
	}
	resp, err := c.do(req)
	if err != nil {
		return scenario.Response{}, err
	}
	c.resp = resp
	return scenario.Response{Status: resp.StatusCode, Body: resp.Body, Header: scenario.NetHTTPHeader(resp.Header)}, nil
}

func (c *netHTTPClient) done() bool {
	if c.resp != nil {
		c.resp.Body.Close()
		c.resp = nil
	}
	return c.timer.stop()
}

func (c *netHTTPClient) close() { c.timer.close() }

// errorOp names a method as http.Client's errors do: "Get", "Post".
func errorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}
