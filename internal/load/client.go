package load

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// sendFunc sends one request: http.Client.Do, or the engine's own
// shortcut to its Transport.
type sendFunc func(*http.Request) (*http.Response, error)

// newClient returns a client tuned for generating load on one host: no
// proxy lookups, no transparent gzip, HTTP/1.1 keep-alive connections
// bounded by the number of workers (so sockets never outnumber in-flight
// iterations), and redirects returned rather than followed (a step expects
// a status). Idle connections never time out: the run closes them at its
// end, and an idle timer would cost two timer operations per request.
func newClient(conns int, timeout time.Duration) (*http.Client, *http.Transport) {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		MaxConnsPerHost:       conns,
		TLSHandshakeTimeout:   timeout,
		DisableCompression:    true,
		ExpectContinueTimeout: time.Second,
	}
	c := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, tr
}

// direct sends through tr itself rather than through c, which would cost
// four allocations per request (header and URL copies kept for redirects
// that c never follows anyway). Errors are wrapped as c would wrap them.
// A URL with credentials goes through c, which turns them into basic auth.
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

// errorOp names a method as http.Client's errors do: "Get", "Post".
func errorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}
