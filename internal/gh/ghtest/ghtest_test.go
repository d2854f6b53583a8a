package ghtest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// strict records the failures the fake reports instead of failing.
type strict struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (s *strict) Errorf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func get(t *testing.T, s *Server, path string, header map[string]string) *http.Response {
	t.Helper()
	return do(t, s, http.MethodGet, path, "", header)
}

func do(t *testing.T, s *Server, method, path, body string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

var goGitHub = map[string]string{"Authorization": "Bearer " + DefaultToken,
	"X-GitHub-Api-Version": APIVersion, "Accept": "application/vnd.github.v3+json"}

func TestPaginationLinks(t *testing.T) {
	s := New(t)
	for i := range 5 {
		s.Seed(3, "alice", fmt.Sprint(i))
	}
	resp := get(t, s, "/repos/o/r/issues/3/comments?per_page=100", goGitHub)
	want := fmt.Sprintf(`<%[1]s/repos/o/r/issues/3/comments?page=2&per_page=2>; rel="next", <%[1]s/repos/o/r/issues/3/comments?page=3&per_page=2>; rel="last"`, s.URL())
	if got := resp.Header.Get("Link"); got != want {
		t.Errorf("Link %q, want %q", got, want)
	}
	if got := get(t, s, "/repos/o/r/issues/3/comments?page=3&per_page=2", goGitHub).Header.Get("Link"); got != "" {
		t.Errorf("last page Link %q, want none", got)
	}
	if n := s.Count("GET /repos/o/r/issues/3/comments"); n != 2 {
		t.Errorf("Count = %d, want 2", n)
	}
}

func TestRequestChecks(t *testing.T) {
	for name, tc := range map[string]struct {
		header map[string]string
		path   string
		want   string
	}{
		"token":   {map[string]string{"Authorization": "Bearer other", "X-GitHub-Api-Version": APIVersion, "Accept": "application/vnd.github.v3+json"}, "/user", "want the bearer token"},
		"version": {map[string]string{"Authorization": "Bearer " + DefaultToken, "Accept": "application/vnd.github.v3+json"}, "/user", "X-GitHub-Api-Version"},
		"accept":  {map[string]string{"Authorization": "Bearer " + DefaultToken, "X-GitHub-Api-Version": APIVersion}, "/user", "Accept"},
		"repo":    {goGitHub, "/repos/x/y/issues/1/comments", "not the repository o/r"},
		"base":    {goGitHub, "/../repos/o/r/issues/1/comments", "outside the API base path"},
	} {
		t.Run(name, func(t *testing.T) {
			rec := &strict{TB: t}
			s := New(rec, Repo("o/r"))
			get(t, s, tc.path, tc.header)
			if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], tc.want) {
				t.Errorf("failures %q, want one saying %q", rec.errs, tc.want)
			}
		})
	}
}

func TestReadOnlyAndQueuedReplies(t *testing.T) {
	s := New(t, ReadOnly())
	resp := do(t, s, http.MethodPost, "/repos/o/r/issues/1/comments", `{"body":"x"}`, goGitHub)
	if resp.StatusCode != http.StatusForbidden || len(s.Comments(1)) != 0 {
		t.Errorf("read-only POST: %d, %d comments; want 403 and none", resp.StatusCode, len(s.Comments(1)))
	}
	s.Queue("GET /user", Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "7"}})
	if r := get(t, s, "/user", goGitHub); r.StatusCode != 429 || r.Header.Get("Retry-After") != "7" {
		t.Errorf("queued reply: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := get(t, s, "/user", goGitHub); r.StatusCode != http.StatusForbidden {
		t.Errorf("after the queue GET /user = %d, want the Actions token's 403", r.StatusCode)
	}
}
