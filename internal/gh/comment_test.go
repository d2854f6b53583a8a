package gh

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
)

const testMarker = "<!-- tailgate:api -->"

// sleeps records the waits the client asked for, without waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return nil
}

func newTestClient(t *testing.T, f *ghtest.Server, s *sleeps, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithSleep(s.sleep)}, opts...)
	c, err := New(f.Token(), f.URL(), opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func decodeBody(t *testing.T, call ghtest.Call) string {
	t.Helper()
	var in struct{ Body string }
	if err := json.Unmarshal([]byte(call.Body), &in); err != nil {
		t.Fatalf("%s %s body is not JSON: %v", call.Method, call.Path, err)
	}
	return in.Body
}

func TestUpsertCreatesWhenNoMarkedComment(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t) // an Actions token: GET /user is 403
	f.Seed(7, "alice", "LGTM")
	f.Seed(7, ActionsBotLogin, "another bot message without the marker")
	c := newTestClient(t, f, &sleeps{})

	got, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "## tailgate\n\npass")
	if err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if !got.Created || got.ID == 0 || !strings.Contains(got.URL, "issuecomment-") || got.Truncated {
		t.Errorf("Upsert = %+v, want a created, untruncated comment with an id and URL", got)
	}
	calls := f.Calls()
	wantSeq := []string{"GET /user", "GET /repos/o/r/issues/7/comments", "POST /repos/o/r/issues/7/comments"}
	if len(calls) != len(wantSeq) {
		t.Fatalf("calls = %v, want %v", calls, wantSeq)
	}
	for i, w := range wantSeq {
		if got := calls[i].Method + " " + calls[i].Path; got != w {
			t.Errorf("call %d = %s, want %s", i, got, w)
		}
	}
	if calls[1].Query != "per_page=100" {
		t.Errorf("list query = %q, want per_page=100", calls[1].Query)
	}
	if body := decodeBody(t, calls[2]); !strings.HasPrefix(body, testMarker+"\n") || !strings.Contains(body, "pass") {
		t.Errorf("created body %q does not start with the marker and carry the report", body)
	}
	if n := len(f.Comments(7)); n != 3 {
		t.Errorf("PR has %d comments, want 3", n)
	}
}

func TestUpsertEditsOwnCommentFoundOnLaterPage(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	f.Seed(7, "alice", "first")
	f.Seed(7, "bob", "second")
	f.Seed(7, "carol", "third")
	own := f.Seed(7, ActionsBotLogin, testMarker+"\nold report")
	c := newTestClient(t, f, &sleeps{})

	got, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "new report")
	if err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if got.Created || got.ID != own {
		t.Errorf("Upsert = %+v, want an edit of comment %d", got, own)
	}
	if n := f.Count("GET /repos/o/r/issues/7/comments"); n != 2 {
		t.Errorf("listed %d pages, want 2 (the marker is on page 2)", n)
	}
	if n := f.Count("POST /repos/o/r/issues/7/comments"); n != 0 {
		t.Errorf("created %d comments, want none", n)
	}
	patch := fmt.Sprintf("/repos/o/r/issues/comments/%d", own)
	if n := f.Count("PATCH " + patch); n != 1 {
		t.Fatalf("PATCH %s called %d times, want 1", patch, n)
	}
	for _, call := range f.Calls() {
		if call.Method == "GET" && strings.Contains(call.Query, "page=2") && !strings.Contains(call.Query, "per_page=") {
			t.Errorf("page 2 request %q lost per_page", call.Query)
		}
	}
	comments := f.Comments(7)
	if len(comments) != 4 || comments[3].Body != testMarker+"\nnew report" {
		t.Errorf("comments after edit = %+v", comments)
	}
}

func TestUpsertNeverEditsAnotherUsersMarkedComment(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t, ghtest.Login("tailgate-bot")) // a personal token: GET /user answers
	foreign := f.Seed(7, "mallory", testMarker+"\nfake all-clear")
	c := newTestClient(t, f, &sleeps{})

	got, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "real report")
	if err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if !got.Created || got.ID == foreign {
		t.Errorf("Upsert = %+v, want a new comment, not mallory's %d", got, foreign)
	}
	if n := f.Count(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", foreign)); n != 0 {
		t.Errorf("mallory's comment was edited %d times", n)
	}
	comments := f.Comments(7)
	if comments[0].Body != testMarker+"\nfake all-clear" || comments[1].User.Login != "tailgate-bot" {
		t.Errorf("comments = %+v", comments)
	}

	// The next push edits our own comment, still leaving mallory's alone.
	again, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "second report")
	if err != nil || again.Created || again.ID != got.ID {
		t.Errorf("second Upsert = %+v, %v; want an edit of %d", again, err, got.ID)
	}
	if n := f.Count("GET /user"); n != 1 {
		t.Errorf("GET /user called %d times, want once (cached)", n)
	}
}

func TestUpsertPermissionDenied(t *testing.T) {
	t.Parallel()
	for _, status := range []int{403, 404} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := ghtest.New(t)
			f.Queue("POST /repos/o/r/issues/7/comments", ghtest.Reply{Status: status,
				Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`})
			s := &sleeps{}
			c := newTestClient(t, f, s)
			_, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
			if !IsPermission(err) || IsRateLimit(err) {
				t.Fatalf("err = %v; IsPermission %v, IsRateLimit %v; want a permission error", err, IsPermission(err), IsRateLimit(err))
			}
			if strings.Contains(err.Error(), f.Token()) {
				t.Errorf("the error leaks the token: %v", err)
			}
			want := fmt.Sprintf("create the comment on o/r#7: POST /api/v3/repos/o/r/issues/7/comments: %d Resource not accessible by integration", status)
			if err.Error() != want {
				t.Errorf("err = %q, want %q (no go-github [] at the end)", err, want)
			}
			if n := f.Count("POST /repos/o/r/issues/7/comments"); n != 1 || len(s.got) != 0 {
				t.Errorf("POST called %d times with %d retries, want 1 and none", n, len(s.got))
			}
		})
	}
}

func TestPrimaryRateLimitIsRetried(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	now := time.Unix(1_800_000_000, 0)
	f.Queue("POST /repos/o/r/issues/7/comments", ghtest.Reply{Status: 403,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "1000",
			"X-RateLimit-Reset": fmt.Sprint(now.Unix() + 2)},
		Body: `{"message":"API rate limit exceeded for installation.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`})
	s := &sleeps{}
	c := newTestClient(t, f, s, WithClock(func() time.Time { return now }))

	got, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
	if err != nil || !got.Created {
		t.Fatalf("Upsert = %+v, %v; want a created comment after the retry", got, err)
	}
	if n := f.Count("POST /repos/o/r/issues/7/comments"); n != 2 {
		t.Errorf("POST called %d times, want 2", n)
	}
	if len(s.got) != 1 || s.got[0] < 2*time.Second || s.got[0] > 4*time.Second {
		t.Errorf("waits = %v, want one wait until the reset (2–4 s)", s.got)
	}
	if n := len(f.Comments(7)); n != 1 {
		t.Errorf("PR has %d comments, want exactly 1", n)
	}
	posts := 0
	for _, call := range f.Calls() {
		if call.Method == "POST" {
			posts++
			if body := decodeBody(t, call); !strings.Contains(body, "report") {
				t.Errorf("POST %d sent body %q; the retry must resend the body", posts, body)
			}
		}
	}
}

func TestSecondaryRateLimitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	f.Queue("GET /repos/o/r/issues/7/comments", ghtest.Reply{Status: 403,
		Header: map[string]string{"Retry-After": "3"},
		Body:   `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`})
	s := &sleeps{}
	c := newTestClient(t, f, s)
	if _, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report"); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if len(s.got) != 1 || s.got[0] != 3*time.Second {
		t.Errorf("waits = %v, want [3s]", s.got)
	}
	if n := f.Count("GET /repos/o/r/issues/7/comments"); n != 2 {
		t.Errorf("listed %d times, want 2", n)
	}
}

func TestServerErrorsAreRetriedWithBackoff(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	f.Queue("GET /repos/o/r/issues/7/comments",
		ghtest.Reply{Status: 502, Body: `{"message":"Server Error"}`},
		ghtest.Reply{Status: 503, Body: `{"message":"Service Unavailable"}`})
	s := &sleeps{}
	c := newTestClient(t, f, s)
	got, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
	if err != nil || !got.Created {
		t.Fatalf("Upsert = %+v, %v", got, err)
	}
	if n := f.Count("GET /repos/o/r/issues/7/comments"); n != 3 {
		t.Errorf("listed %d times, want 3", n)
	}
	if len(s.got) != 2 || s.got[1] <= s.got[0] {
		t.Errorf("waits = %v, want two growing waits", s.got)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	t.Parallel()
	limited := ghtest.Reply{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "Retry-After": "1"},
		Body: `{"message":"API rate limit exceeded"}`}
	t.Run("attempts", func(t *testing.T) {
		f := ghtest.New(t)
		f.Queue("POST /repos/o/r/issues/7/comments", limited, limited, limited, limited)
		s := &sleeps{}
		c := newTestClient(t, f, s)
		_, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
		if !IsRateLimit(err) || IsPermission(err) {
			t.Fatalf("err = %v, want a rate-limit error that is not a permission error", err)
		}
		if n := f.Count("POST /repos/o/r/issues/7/comments"); n != 3 || len(s.got) != 2 {
			t.Errorf("POST called %d times with %d waits, want 3 and 2", n, len(s.got))
		}
	})
	t.Run("secondary limit go-github does not recognise", func(t *testing.T) {
		f := ghtest.New(t)
		secondary := ghtest.Reply{Status: 403, Header: map[string]string{"Retry-After": "2"},
			Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`}
		f.Queue("POST /repos/o/r/issues/7/comments", secondary, secondary, secondary)
		s := &sleeps{}
		c := newTestClient(t, f, s)
		_, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
		if !IsRateLimit(err) || IsPermission(err) {
			t.Fatalf("err = %v; IsRateLimit %v, IsPermission %v; want a rate limit, not a permission error",
				err, IsRateLimit(err), IsPermission(err))
		}
		if len(s.got) != 2 || s.got[0] != 2*time.Second {
			t.Errorf("waits = %v, want [2s 2s]", s.got)
		}
	})
	t.Run("reset too far away", func(t *testing.T) {
		f := ghtest.New(t)
		now := time.Unix(1_800_000_000, 0)
		f.Queue("POST /repos/o/r/issues/7/comments", ghtest.Reply{Status: 403,
			Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": fmt.Sprint(now.Unix() + 3600)},
			Body:   `{"message":"API rate limit exceeded"}`})
		s := &sleeps{}
		c := newTestClient(t, f, s, WithClock(func() time.Time { return now }))
		_, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
		if !IsRateLimit(err) {
			t.Fatalf("err = %v, want a rate-limit error", err)
		}
		if n := f.Count("POST /repos/o/r/issues/7/comments"); n != 1 || len(s.got) != 0 {
			t.Errorf("POST called %d times with waits %v, want 1 and none", n, s.got)
		}
	})
}

func TestUpsertRejectsPRZeroWithoutCalls(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	c := newTestClient(t, f, &sleeps{})
	for _, pr := range []int{0, -3} {
		if _, err := c.Upsert(t.Context(), "o", "r", pr, testMarker, "report"); err == nil ||
			!strings.Contains(err.Error(), "no pull request number") {
			t.Errorf("Upsert(pr=%d) err = %v, want a clear error", pr, err)
		}
	}
	if _, err := c.Upsert(t.Context(), "o", "r", 7, "tailgate", "report"); err == nil {
		t.Error("Upsert with a visible marker succeeded, want an error")
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("calls = %v, want none", calls)
	}
}

func TestUpsertTruncatesLongBody(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	own := f.Seed(7, ActionsBotLogin, testMarker+"\nold")
	c := newTestClient(t, f, &sleeps{})
	var b strings.Builder
	b.WriteString("## tailgate: regression\n\n<details><summary>all metrics</summary>\n\n| metric | base | head |\n|---|---|---|\n")
	for i := 0; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "| GET /items/%d p99 | %d ms | %d ms |\n", i, i%50, i%70)
	}
	b.WriteString("</details>\n")

	got, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, b.String())
	if err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if !got.Truncated || got.Created || got.ID != own {
		t.Errorf("Upsert = %+v, want a truncated edit of %d", got, own)
	}
	body := f.Comments(7)[0].Body
	if len(body) > MaxCommentBytes || !strings.HasPrefix(body, testMarker) ||
		!strings.Contains(body, "cut to fit GitHub's comment size limit") || !strings.HasPrefix(body[len(testMarker)+1:], "## tailgate: regression") {
		t.Errorf("stored Body: %d bytes, prefix %q, suffix %q", len(body), body[:60], body[len(body)-160:])
	}
	if strings.Count(body, "<details>") != strings.Count(body, "</details>") {
		t.Error("the cut left <details> open")
	}
}

func TestUpdateExistingWritesOnlyWhenFound(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	c := newTestClient(t, f, &sleeps{})
	if _, found, err := c.UpdateExisting(t.Context(), "o", "r", 7, testMarker, "fixed"); err != nil || found {
		t.Fatalf("UpdateExisting with no comment: found %v, err %v", found, err)
	}
	if n := f.Count("POST /repos/o/r/issues/7/comments"); n != 0 {
		t.Errorf("UpdateExisting created %d comments", n)
	}
	own := f.Seed(7, ActionsBotLogin, testMarker+"\nregression")
	got, found, err := c.UpdateExisting(t.Context(), "o", "r", 7, testMarker, "fixed")
	if err != nil || !found || got.ID != own {
		t.Fatalf("UpdateExisting = %+v, %v, %v; want an edit of %d", got, found, err, own)
	}
	if body := f.Comments(7)[0].Body; body != testMarker+"\nfixed" {
		t.Errorf("body = %q", body)
	}
}

func TestNewValidatesTokenAndURL(t *testing.T) {
	t.Parallel()
	if _, err := New("", "https://api.github.com"); err == nil || !strings.Contains(err.Error(), "github_token") {
		t.Errorf("New with no token: %v, want an error naming the input", err)
	}
	for _, bad := range []string{"ftp://ghe.example.com/api/v3", "api.github.com", "http://"} {
		if _, err := New("t", bad); err == nil {
			t.Errorf("New(%q) succeeded, want an error", bad)
		}
	}
	for in, want := range map[string]string{
		"":                                "https://api.github.com/",
		"https://api.github.com":          "https://api.github.com/",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com/api/v3/",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/v3/",
	} {
		c, err := New("t", in)
		if err != nil {
			t.Fatalf("New(%q): %v", in, err)
		}
		if got := c.api.BaseURL.String(); got != want {
			t.Errorf("New(%q) base URL = %q, want %q", in, got, want)
		}
	}
}

// A refusal with field errors says them, and the server's words stay on
// one bounded line however it answers.
func TestAPIErrorsAreOneCleanLine(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	f.Queue("POST /repos/o/r/issues/7/comments", ghtest.Reply{Status: 422,
		Body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment","field":"body","code":"too_long"}]}`})
	c := newTestClient(t, f, &sleeps{})
	_, err := c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
	want := "POST /api/v3/repos/o/r/issues/7/comments: 422 Validation Failed (IssueComment body too_long)"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %v, want it to end %q", err, want)
	}
	id := f.Seed(7, "github-actions[bot]", testMarker+" old")
	f.Queue(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", id), ghtest.Reply{Status: 403,
		Body: `{"message":"nope\n::error title=injected::pwned\r` + strings.Repeat("x", 1000) + `"}`})
	_, err = c.Upsert(t.Context(), "o", "r", 7, testMarker, "report")
	if err == nil || !IsPermission(err) || strings.ContainsAny(err.Error(), "\r\n") || len(err.Error()) > 500 ||
		!strings.Contains(err.Error(), "403 nope ::error title=injected::pwned xxx") {
		t.Errorf("err = %q, want a permission error on one line of bounded length", err)
	}
}
