package gh

import (
	"errors"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// IsPermission reports whether err is GitHub refusing the token: 403 or 404
// (a read-only fork PR token, a missing pull-requests: write permission, or a
// repository the token cannot see). Rate-limit 403s are not permission errors.
func IsPermission(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return false
	}
	switch er.Response.StatusCode {
	case http.StatusForbidden:
		return !isRateLimited(er.Response)
	case http.StatusNotFound:
		return true
	}
	return false
}

// IsRateLimit reports whether err is a primary or secondary rate limit that
// outlasted the retries.
func IsRateLimit(err error) bool {
	var rle *github.RateLimitError
	var are *github.AbuseRateLimitError
	if errors.As(err, &rle) || errors.As(err, &are) {
		return true
	}
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && isRateLimited(er.Response)
}

// isRateLimited tells a rate-limit response from a permission refusal by its
// headers: an exhausted quota, or a Retry-After on a secondary limit.
func isRateLimited(r *http.Response) bool {
	if r.StatusCode == http.StatusTooManyRequests {
		return true
	}
	return r.Header.Get("X-RateLimit-Remaining") == "0" || r.Header.Get("Retry-After") != ""
}
