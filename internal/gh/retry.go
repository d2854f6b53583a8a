package gh

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryPolicy bounds how often and how long a request is retried.
type retryPolicy struct {
	attempts int           // tries per request, including the first
	backoff  time.Duration // first wait when the server gives no hint; doubles
	maxWait  time.Duration // longest wait accepted; a longer hint is not waited for
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
}

// retryTransport retries rate-limited (primary and secondary) and 5xx
// responses below go-github. Retrying here rather than around go-github's
// calls matters: after a rate-limit error go-github refuses further calls
// locally until the reset time, without asking the server again.
type retryTransport struct {
	next   http.RoundTripper
	policy retryPolicy
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		wait, retry := t.decide(req, resp, err, attempt)
		if !retry {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if err := t.policy.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil { // send a fresh body
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// decide says whether to retry after this attempt and how long to wait.
func (t *retryTransport) decide(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if attempt >= t.policy.attempts || (req.Body != nil && req.GetBody == nil) {
		return 0, false
	}
	backoff := t.policy.backoff << (attempt - 1)
	if err != nil {
		// A lost connection may have carried a write; only reads are safe.
		return backoff, req.Method == http.MethodGet && req.Context().Err() == nil
	}
	if resp.StatusCode >= 500 {
		return min(backoff, t.policy.maxWait), true
	}
	if !t.rateLimited(resp) {
		return 0, false
	}
	wait, hinted := t.hint(resp)
	if !hinted {
		wait = backoff
	}
	if wait > t.policy.maxWait {
		return 0, false // the limit outlasts the job's patience; report it
	}
	return wait, true
}

// rateLimited recognises GitHub's primary limit (403/429 with no remaining
// quota) and secondary limit (403/429 with Retry-After or the documented
// message). It may read and restore the body.
func (t *retryTransport) rateLimited(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	if isRateLimited(resp) { // every 429 is
		return true
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit"))
}

// hint is the server's wait: Retry-After seconds, else X-RateLimit-Reset.
func (t *retryTransport) hint(resp *http.Response) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, true
		}
	}
	if s := resp.Header.Get("X-RateLimit-Reset"); s != "" {
		if epoch, err := strconv.ParseInt(s, 10, 64); err == nil {
			return max(time.Unix(epoch, 0).Sub(t.policy.now()), 0) + time.Second, true
		}
	}
	return 0, false
}
