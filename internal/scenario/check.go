package scenario

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/jsonmatch"
)

// FailureKind says which check a response failed: its status, or any
// other (an expected value, a saved value missing, a body too large to
// check, a request that could not be rendered).
type FailureKind int

const (
	StatusMismatch FailureKind = iota + 1
	ExpectationFailed
)

// Failure describes a response that failed its step's checks; the message
// is built only when asked for (counting stays cheap).
type Failure struct {
	Kind    FailureKind
	Status  int
	snippet [160]byte
	n       int
	err     error
}

// Message is a one-line sample such as `409 INVALID ACTION`.
func (f *Failure) Message() string {
	if f.Kind == ExpectationFailed {
		return f.err.Error()
	}
	line := string(f.snippet[:f.n])
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line = line[:i]
	}
	line = cmp.Or(strings.TrimSpace(line), http.StatusText(f.Status))
	return strings.TrimSpace(fmt.Sprintf("%d %s", f.Status, line))
}

// Response is what the checks read of a response, whichever client got it.
type Response struct {
	Status int
	Body   io.Reader      // Check reads what the checks need and drains the rest
	Header ResponseHeader // nil: the client shows none
}

// ResponseHeader is what the checks read of a response's header fields,
// whichever form the client holds them in, valid until the next request:
// the first field named name (in any case), and each Set-Cookie value in
// the order received.
type ResponseHeader interface {
	Get(name string) (string, bool)
	SetCookies(dst []string) []string
}

type NetHTTPHeader http.Header

func (h NetHTTPHeader) Get(name string) (string, bool) {
	if v := http.Header(h).Values(name); len(v) > 0 {
		return v[0], true
	}
	return "", false
}

func (h NetHTTPHeader) SetCookies(dst []string) []string { return append(dst, h["Set-Cookie"]...) }

// Check checks step i's response, drains its body (for the connection's
// reuse) and saves values for later steps: a *Failure (valid until the next
// Check) is a failed check, an error a failed read. The caller closes the body.
func (x *Executor) Check(i int, resp Response) (*Failure, error) {
	st := &x.cur[i]
	x.takeCookies(resp.Header)
	if want, got := st.status, resp.Status; want == 0 && (got < 200 || got > 299) || want != 0 && got != want {
		n, _ := io.ReadFull(resp.Body, x.fail.snippet[:])
		_, _ = io.Copy(io.Discard, resp.Body) // the failure is known; a read error changes nothing
		x.fail.Kind, x.fail.Status, x.fail.n, x.fail.err = StatusMismatch, resp.Status, n, nil
		return &x.fail, nil
	}
	if err := matchHeaders(st, resp.Header); err != nil {
		_, rerr := io.Copy(io.Discard, resp.Body)
		return x.expectFailedAt(resp.Status, err), rerr
	}
	if !st.needBody {
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return nil, err
		}
		return x.save(st, resp, nil), nil
	}
	body, err := x.readBody(resp.Body)
	if err != nil {
		return nil, err
	}
	if len(body) > MaxBodyBytes {
		_, err := io.Copy(io.Discard, resp.Body)
		return x.expectFailedAt(resp.Status, fmt.Errorf("response body is larger than %d bytes; expect and save read at most that", MaxBodyBytes)), err
	}
	if err := jsonmatch.Match(body, st.expect); err != nil {
		return x.expectFailedAt(resp.Status, err), nil
	}
	if err := x.matchTemplated(st, body); err != nil {
		return x.expectFailedAt(resp.Status, err), nil
	}
	return x.save(st, resp, body), nil
}

// save saves the step's values (body: when read); one missing fails the step.
func (x *Executor) save(st *boundStep, resp Response, body []byte) *Failure {
	for _, s := range st.save {
		v, ok := "", false
		switch s.from {
		case config.SaveHeader:
			if resp.Header != nil {
				v, ok = resp.Header.Get(s.path)
			}
		case config.SaveCookie:
			for _, line := range x.setCookies { // the value the last Set-Cookie of the name sets
				if c, err := http.ParseSetCookie(line); err == nil && c.Name == s.path {
					v, ok = c.Value, true
				}
			}
		case config.SaveBody:
			ok = true
		default:
			if v, ok = jsonmatch.Get(body, s.path); !ok {
				return x.expectFailedAt(resp.Status, fmt.Errorf("save %s: %s missing in response %s", s.name, s.path, jsonmatch.Snippet(body)))
			}
		}
		if !ok {
			return x.expectFailedAt(resp.Status, fmt.Errorf("save %s: the response has no %s %s", s.name, s.from, s.path))
		}
		if s.re != nil {
			var found bool
			if v, found = s.find(v, body); !found {
				on := fmt.Sprintf("%s %s %q", s.from, s.path, v)
				if s.from == config.SaveBody {
					on = "the body " + jsonmatch.Snippet(body)
				}
				return x.expectFailedAt(resp.Status, fmt.Errorf("step %q save %s: regex %q matches nothing in %s", st.name, s.name, s.re, on))
			}
		}
		x.vars[s.name] = strings.Clone(v)
	}
	return nil
}

// find applies the rule's regex to v, or to body for a body rule: the
// text of its group, or of the whole match without one.
func (s saveRule) find(v string, body []byte) (string, bool) {
	var loc []int
	if s.from == config.SaveBody {
		loc = s.re.FindSubmatchIndex(body)
	} else {
		loc = s.re.FindStringSubmatchIndex(v)
	}
	g := 2 * s.re.NumSubexp() // 0 or 2: CompileSaveRegex allows one group
	if loc == nil || loc[g] < 0 {
		return "", false // no match, or the group took no part in it
	}
	if s.from == config.SaveBody {
		return string(body[loc[g]:loc[g+1]]), true
	}
	return v[loc[g]:loc[g+1]], true
}

// matchHeaders checks the header expectations on each field's first value.
func matchHeaders(st *boundStep, h ResponseHeader) error {
	for _, e := range st.expectHdr {
		v, ok := "", false
		if h != nil {
			v, ok = h.Get(e.name)
		}
		if !ok {
			return fmt.Errorf("header %s: missing, want a match of %q", e.name, e.re)
		}
		if !e.re.MatchString(v) {
			return fmt.Errorf("header %s = %q, want a match of %q", e.name, v, e.re)
		}
	}
	return nil
}

// takeCookies reads every response's Set-Cookie fields, whatever its
// status (a login answered by a redirect), for the jar and for save.
func (x *Executor) takeCookies(h ResponseHeader) {
	x.setCookies = x.setCookies[:0]
	if h == nil {
		return
	}
	x.setCookies = h.SetCookies(x.setCookies)
	if x.jar == nil || len(x.setCookies) == 0 {
		return
	}
	now, path := time.Now(), x.reqPath()
	for _, line := range x.setCookies {
		x.jar.set(line, path, now)
	}
}

// matchTemplated checks the expected values that are templates: each,
// rendered, must equal the response's value as save reads it, so that a
// saved number matches too.
func (x *Executor) matchTemplated(st *boundStep, body []byte) error {
	for i := range st.expectT {
		e := &st.expectT[i]
		if err := e.value.render(&x.buf, x.vars); err != nil {
			return fmt.Errorf("expect %s: %w", e.path, err)
		}
		if err := jsonmatch.MatchText(body, e.path, x.buf.String()); err != nil {
			return err
		}
	}
	return nil
}

func (x *Executor) expectFailedAt(status int, err error) *Failure {
	x.fail = Failure{Kind: ExpectationFailed, Status: status, err: err}
	return &x.fail
}

// readBody reads up to MaxBodyBytes+1 bytes into the reusable buffer.
func (x *Executor) readBody(body io.Reader) ([]byte, error) {
	if x.resp.Cap() > 64<<10 {
		x.resp = bytes.Buffer{} // one large body must not pin memory in every worker
	}
	x.resp.Reset()
	x.limit = io.LimitedReader{R: body, N: MaxBodyBytes + 1}
	_, err := x.resp.ReadFrom(&x.limit)
	x.limit.R = nil
	return x.resp.Bytes(), err
}
