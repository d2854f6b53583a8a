package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// fastIdle is how long a connection may sit idle before the fast client
// closes it: within two fastIdle, before the shortest keep-alive timeout
// servers commonly use (gunicorn's 2 s) closes it under a request.
const fastIdle = time.Second

// userAgent is sent unless a step sets its own User-Agent header.
const userAgent = "tailgate"

// fastMaxBody bounds the response bodies the fast client holds whole.
const fastMaxBody = 16 << 20

// errBodyTooLarge fails a response the fast client will not read; it
// counts as a failed expectation, like a body too large to check.
var errBodyTooLarge = fmt.Errorf("response body is larger than %d MiB, the most the fast client reads; load.client: nethttp reads bodies of any size", fastMaxBody>>20)

// fastTransport sends HTTP/1.1 with fasthttp (bombardier's library, the
// cheapest we measured): reused buffers, no allocation per request, a
// timeout as a deadline on the connection. One HostClient serves every
// worker, with at most as many connections.
type fastTransport struct {
	hc      *fasthttp.HostClient
	conns   *connSet
	timeout time.Duration
}

func newFastTransport(base *url.URL, workers int, timeout time.Duration, tlsConfig *tls.Config) *fastTransport {
	conns := &connSet{timeout: timeout, open: map[*trackedConn]struct{}{}}
	tlsOn := base.Scheme == "https"
	hc := &fasthttp.HostClient{
		Addr:                          fasthttp.AddMissingPort(base.Host, tlsOn),
		Name:                          userAgent,
		IsTLS:                         tlsOn,
		TLSConfig:                     tlsConfig,
		DialTimeout:                   conns.dial,
		MaxConns:                      workers,
		MaxConnWaitTimeout:            timeout,
		MaxResponseBodySize:           fastMaxBody,
		MaxIdleConnDuration:           fastIdle,
		MaxIdemponentCallAttempts:     2,
		DisablePathNormalizing:        true, // the scenario escaped the URL as net/http would
		DisableHeaderNamesNormalizing: true, // saves look header names up in any case (fastHeader)
	}
	t := &fastTransport{hc: hc, conns: conns, timeout: timeout}
	hc.RetryIfErr = t.retryUnanswered
	return t
}

// client ignores run: the transport's close interrupts the requests.
func (t *fastTransport) client(context.Context) client { return &fastClient{t: t} }

func (t *fastTransport) close() {
	t.conns.closeAll()
	t.hc.CloseIdleConnections()
}

// retryUnanswered resends, as net/http does, a request whose connection the
// server closed before answering when its method changes nothing; the idle
// connections go first (the server has likely closed them too).
func (t *fastTransport) retryUnanswered(req *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
	h := &req.Header
	if attempts > 1 || !(h.IsGet() || h.IsHead() || h.IsOptions() || h.IsTrace()) || !(errors.Is(err, io.EOF) ||
		errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
		return false, false
	}
	t.hc.CloseIdleConnections()
	return false, true
}

// fastClient is a worker's view of the transport, with its reused buffers.
type fastClient struct {
	t    *fastTransport
	req  fasthttp.Request
	from scenario.Request // what req was built from; its Header is the client's copy
	resp fasthttp.Response
	body bytes.Reader
}

func (c *fastClient) send(r *scenario.Request) (scenario.Response, error) {
	if !c.built(r) {
		c.build(r)
	}
	if err := c.t.hc.DoTimeout(&c.req, &c.resp, c.t.timeout); err != nil {
		shown := r.URL
		if u, perr := url.Parse(shown); perr == nil {
			shown = u.Redacted()
		}
		return scenario.Response{}, &url.Error{Op: errorOp(r.Method), URL: shown, Err: plainError(err)}
	}
	c.body.Reset(c.resp.Body())
	return scenario.Response{Status: c.resp.StatusCode(), Body: &c.body, Header: (*fastHeader)(&c.resp.Header)}, nil
}

// built reports whether req was built from a request equal to r (a step
// without templates repeating): it then goes out as it is.
func (c *fastClient) built(r *scenario.Request) bool {
	f := &c.from
	return f.Method == r.Method && f.URL == r.URL && bytes.Equal(f.Body, r.Body) && (f.Body == nil) == (r.Body == nil) &&
		slices.Equal(f.Header, r.Header) && f.Cookie == r.Cookie
}

func (c *fastClient) build(r *scenario.Request) {
	c.req.Reset()
	c.req.SetRequestURI(r.URL)
	h := &c.req.Header
	h.SetMethod(r.Method)
	h.SetNoDefaultContentType(true) // net/http sends none either
	for _, f := range r.Header {
		h.Set(f.Name, f.Value)
	}
	if r.Cookie != "" {
		h.Set("Cookie", r.Cookie)
	}
	if r.Body != nil {
		c.req.SetBodyRaw(r.Body) // valid until the next request, and only read
	}
	c.from = scenario.Request{Method: r.Method, URL: r.URL, Header: append(c.from.Header[:0], r.Header...), Body: r.Body, Cookie: r.Cookie}
}

// fastHeader shows fasthttp's response header to the checks, names as sent.
type fastHeader fasthttp.ResponseHeader

func (h *fastHeader) Get(name string) (string, bool) {
	for k, v := range (*fasthttp.ResponseHeader)(h).All() {
		if strings.EqualFold(string(k), name) {
			return string(v), true
		}
	}
	return "", false
}

func (h *fastHeader) SetCookies(dst []string) []string {
	for _, v := range (*fasthttp.ResponseHeader)(h).Cookies() {
		dst = append(dst, string(v))
	}
	return dst
}

// done reports no expiry: a request past its deadline fails with its own timeout.
func (c *fastClient) done() bool { return false }

func (c *fastClient) close() {
	c.body.Reset(nil)
	c.resp.Reset()
}

// errUnanswered words fasthttp's ErrConnectionClosed for our users, as
// net/http would: its own text advises fasthttp's.
var errUnanswered = errors.New("EOF: the server closed the connection before answering")

// plainError replaces fasthttp's errors that speak to fasthttp's users.
func plainError(err error) error {
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return errBodyTooLarge
	case errors.Is(err, fasthttp.ErrConnectionClosed):
		return errUnanswered
	}
	return err
}

// connSet tracks the fast transport's open connections: fasthttp closes
// only idle ones, and the end of a run interrupts those in flight too.
type connSet struct {
	timeout time.Duration // a dial's bound when fasthttp gives none
	mu      sync.Mutex
	open    map[*trackedConn]struct{}
	closed  bool
}

var errClosed = errors.New("the run is over: no new connections")

func (s *connSet) dial(addr string, timeout time.Duration) (net.Conn, error) {
	if timeout <= 0 {
		timeout = s.timeout
	}
	d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		conn.Close()
		return nil, errClosed
	}
	tc := &trackedConn{Conn: conn, set: s}
	s.open[tc] = struct{}{}
	return tc, nil
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := s.open
	s.open = map[*trackedConn]struct{}{}
	s.mu.Unlock()
	for c := range open {
		c.Conn.Close()
	}
}

func (s *connSet) forget(c *trackedConn) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// trackedConn leaves its set when closed; its deadlines move by deadlineStep.
type trackedConn struct {
	net.Conn
	set           *connSet
	read, written int64 // the deadlines last set, as deadlineKey numbers them
}

// deadlineStep is the resolution of request timeouts on the fast path:
// rounded up to it, a busy connection's deadline changes once per step,
// not twice per request (each change a timer update).
const deadlineStep = 10 * time.Millisecond

func (c *trackedConn) Close() error {
	c.set.forget(c)
	return c.Conn.Close()
}

func (c *trackedConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

func (c *trackedConn) SetReadDeadline(t time.Time) error {
	return moveDeadline(&c.read, t, c.Conn.SetReadDeadline)
}

func (c *trackedConn) SetWriteDeadline(t time.Time) error {
	return moveDeadline(&c.written, t, c.Conn.SetWriteDeadline)
}

// moveDeadline sets t rounded up to its step, unless that is the deadline
// last set (*last, which it updates).
func moveDeadline(last *int64, t time.Time, set func(time.Time) error) error {
	key := deadlineKey(t)
	if key == *last {
		return nil
	}
	*last = key
	return set(roundDeadline(t, key))
}

// deadlineKey numbers the step t rounds up to; 0 is the zero time (no deadline).
func deadlineKey(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return (t.UnixNano() + int64(deadlineStep) - 1) / int64(deadlineStep)
}

// roundDeadline moves t up to its step's end, keeping its monotonic reading.
func roundDeadline(t time.Time, key int64) time.Time {
	if key == 0 {
		return t
	}
	return t.Add(time.Duration(key*int64(deadlineStep) - t.UnixNano()))
}
