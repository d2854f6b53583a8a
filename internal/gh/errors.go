package gh

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

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
	code := er.Response.StatusCode
	return code == http.StatusNotFound || code == http.StatusForbidden && !isRateLimited(er.Response)
}

// isRateLimited tells a rate-limit response from a permission refusal by its
// headers: an exhausted quota, or a Retry-After on a secondary limit.
func isRateLimited(r *http.Response) bool {
	return r.StatusCode == http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Remaining") == "0" || r.Header.Get("Retry-After") != ""
}

// maxServerText bounds how much of the server's own words an error quotes.
const maxServerText = 300

// apiError is a refusal of the REST API in words: the request, the status
// and GitHub's message, with its field errors when there are some, on one
// line. go-github's own text ends in "[]" when there are none. It unwraps
// to go-github's error, so IsPermission and IsRateLimit still see it.
type apiError struct{ er *github.ErrorResponse }

func (e *apiError) Unwrap() error { return e.er }

func (e *apiError) Error() string {
	var b strings.Builder
	if r := e.er.Response; r != nil {
		if r.Request != nil && r.Request.URL != nil {
			fmt.Fprintf(&b, "%s %s: ", r.Request.Method, r.Request.URL.Path)
		}
		fmt.Fprintf(&b, "%d ", r.StatusCode)
	}
	b.WriteString(serverText(cmp.Or(e.er.Message, "(no message)")))
	var details []string
	for _, fe := range e.er.Errors {
		d := strings.TrimSpace(strings.Join([]string{fe.Resource, fe.Field, fe.Code, fe.Message}, " "))
		if d != "" {
			details = append(details, serverText(d))
		}
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, "; ") + ")")
	}
	return b.String()
}

// serverText is text from the server on one line, clipped.
func serverText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxServerText {
		s = string(r[:maxServerText]) + "…"
	}
	return s
}

// described returns err with an API refusal in words (apiError); other
// errors (the network, rate limits, which go-github words well) as they are.
func described(err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && err == error(er) {
		return &apiError{er}
	}
	return err
}
