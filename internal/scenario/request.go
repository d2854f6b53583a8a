package scenario

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Request is one step's request, rendered: what any HTTP/1.1 client needs
// to send it. It stays valid until its Executor renders the next one; a
// client only reads it.
type Request struct {
	Method    string
	URL       string       // absolute and escaped, as url.URL.String writes it
	Header    []Header     // the step's, canonical names, each at most once
	Body      []byte       // nil: no body; a rendered body is the request's own
	Cookie    string       // the Cookie header the jar adds ("": none)
	fixed     *fixedTarget // net/http's forms, prebuilt where a step's parts are constant
	netHeader http.Header
}

type Header struct{ Name, Value string }

// Request renders step i of the current iteration. An error means the
// request cannot be sent: a template failed (e.g. randInt 5 1), or what
// it rendered is no URL or no header value.
func (x *Executor) Request(i int) (*Request, error) {
	st := &x.cur[i]
	body, err := x.renderBody(st)
	if err != nil {
		return nil, fmt.Errorf("step %q body: %w", st.name, err)
	}
	x.req = Request{Method: st.method, Body: body, fixed: st.fixed, netHeader: st.staticNet}
	if st.fixed != nil {
		x.req.URL, x.req.Header = st.fixed.url, st.static
	} else {
		if x.req.URL, err = x.renderURL(st); err != nil {
			return nil, err
		}
		if x.req.Header, err = x.renderHeaders(st); err != nil {
			return nil, err
		}
	}
	if x.jar != nil && len(x.jar.cookies) > 0 && !st.ownCookie {
		x.req.Cookie = x.jar.header(x.reqPath(), time.Now())
	}
	return &x.req, nil
}

// reqPath is the last request's path (for cookies): after the host, no query.
func (x *Executor) reqPath() string {
	if len(x.req.URL) < x.origin {
		return "/"
	}
	p, _, _ := strings.Cut(x.req.URL[x.origin:], "?")
	return cmp.Or(p, "/")
}

// renderURL renders the path onto the base URL, escaped as net/http
// would, so every client sends the same request line.
func (x *Executor) renderURL(st *boundStep) (string, error) {
	if err := st.path.render(&x.buf, x.vars); err != nil {
		return "", fmt.Errorf("step %q path: %w", st.name, err)
	}
	if p := x.buf.Bytes(); len(p) == 0 || p[0] != '/' {
		// appended to the target's URL, "@host/…" would name another host
		return "", fmt.Errorf("step %q path %q does not start with /: a templated path must render one", st.name, p)
	}
	x.url = append(append(x.url[:0], st.prefix...), x.buf.Bytes()...)
	if plainURL(x.url) {
		return string(x.url), nil
	}
	u, err := url.Parse(string(x.url))
	if err != nil {
		return "", fmt.Errorf("step %q: %w", st.name, err)
	}
	return u.String(), nil
}

// plainURL reports whether u is as url.URL.String would write it after
// parsing: printable ASCII needing no escaping, no fragment, only
// well-formed percent escapes.
func plainURL(u []byte) bool {
	for i := 0; i < len(u); i++ {
		switch c := u[i]; {
		case c <= ' ' || c >= 0x7f || strings.IndexByte("\"#<>\\^`{|}", c) >= 0:
			return false
		case c == '%' && (i+2 >= len(u) || !isHex(u[i+1]) || !isHex(u[i+2])):
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (x *Executor) renderHeaders(st *boundStep) ([]Header, error) {
	if !st.templHdrs {
		return st.static, nil
	}
	x.hdrs = append(x.hdrs[:0], st.static...)
	for i := range st.headers {
		h := &st.headers[i]
		if !h.value.templated() {
			continue
		}
		err := h.value.render(&x.buf, x.vars)
		v := x.buf.String()
		if err := cmp.Or(err, checkHeaderValue(v)); err != nil {
			return nil, fmt.Errorf("step %q header %s: %w", st.name, h.name, err)
		}
		x.hdrs = append(x.hdrs, Header{Name: h.name, Value: v})
	}
	return x.hdrs, nil
}

// checkHeaderValue refuses what would end or corrupt the header line.
func checkHeaderValue(v string) error {
	if i := strings.IndexFunc(v, func(c rune) bool { return c < 0x20 && c != '\t' || c == 0x7f }); i >= 0 {
		return fmt.Errorf("value %q contains the control character %#x", v, v[i])
	}
	return nil
}

// renderBody returns the request body, or nil for none. A constant body is
// shared, not copied; a rendered one is a fresh slice the request owns.
func (x *Executor) renderBody(st *boundStep) ([]byte, error) {
	switch {
	case st.constBody != nil:
		return st.constBody, nil
	case st.body.escape != nil:
		out := make([]byte, 0, st.bodyCap) // one allocation: the constant parts are encoded once per plan
		for i := range st.leaves {
			out = append(out, st.body.segments[i]...)
			if err := st.leaves[i].render(&x.buf, x.vars); err != nil {
				return nil, err
			}
			out = st.body.escape(out, x.buf.String())
		}
		out = append(out, st.body.segments[len(st.leaves)]...)
		st.bodyCap = max(st.bodyCap, len(out))
		return out, nil
	case st.raw.templated():
		if err := st.raw.render(&x.buf, x.vars); err != nil {
			return nil, err
		}
		return bytes.Clone(x.buf.Bytes()), nil
	}
	return nil, nil
}

// HTTP returns the request in net/http's form, bound to ctx; a step whose
// URL and headers are constant shares one read-only prebuilt request.
func (r *Request) HTTP(ctx context.Context) (*http.Request, error) {
	var req *http.Request
	if r.fixed != nil {
		req = r.fixed.http.WithContext(ctx)
	} else {
		var err error
		if req, err = http.NewRequestWithContext(ctx, r.Method, r.URL, nil); err != nil {
			return nil, err
		}
		req.Header = r.netHeader // read-only, as the prebuilt request's
		if req.Header == nil {
			req.Header = httpHeader(r.Header)
		}
	}
	if r.Cookie != "" {
		req.Header = req.Header.Clone() // the shared one stays read-only
		req.Header.Set("Cookie", r.Cookie)
	}
	if r.Body != nil {
		req.Body = io.NopCloser(bytes.NewReader(r.Body))
		req.ContentLength = int64(len(r.Body))
	}
	return req, nil
}

func httpHeader(hs []Header) http.Header {
	h := make(http.Header, len(hs))
	for _, f := range hs {
		h[f.Name] = []string{f.Value}
	}
	return h
}
