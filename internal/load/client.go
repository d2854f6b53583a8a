package load

import (
	"net"
	"net/http"
	"time"
)

// newClient returns a client tuned for generating load on one host: no
// proxy lookups, no transparent gzip, keep-alive connections bounded by the
// number of workers (so sockets never outnumber in-flight iterations), and
// redirects returned rather than followed (a step expects a status).
func newClient(conns int, timeout time.Duration) (*http.Client, *http.Transport) {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		MaxConnsPerHost:       conns,
		IdleConnTimeout:       90 * time.Second,
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
