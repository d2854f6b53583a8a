package load

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// sessionServer logs in with cookies as session frameworks do: the run's
// login sets a tenant cookie every user login requires, a user's login
// sets its session cookie and hands a CSRF token in a header, and /items
// answers only a known session that brings its token. /items sets a
// cookie of its own that /again must see and the next iteration's /items
// must not: iterations start from what setup left.
type sessionServer struct {
	mu       sync.Mutex
	csrf     map[string]string // session → its CSRF token
	used     map[string]int    // session → requests to /items
	runLogin int
}

func newSessionServer() *sessionServer {
	return &sessionServer{csrf: map[string]string{}, used: map[string]int{}}
}

func (s *sessionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cookie := func(name string) string {
		c, err := r.Cookie(name)
		if err != nil {
			return ""
		}
		return c.Value
	}
	switch r.URL.Path {
	case "/tenant":
		s.runLogin++
		http.SetCookie(w, &http.Cookie{Name: "tenant", Value: "t-1", Path: "/", HttpOnly: true})
	case "/login":
		if cookie("tenant") != "t-1" {
			http.Error(w, "no tenant cookie", http.StatusForbidden)
			return
		}
		sid := fmt.Sprintf("s-%03d", len(s.csrf)+1)
		s.csrf[sid] = "c-" + sid
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
		w.Header().Set("X-Csrf-Token", s.csrf[sid])
		w.WriteHeader(http.StatusFound) // a form login answers with a redirect
	case "/items", "/again":
		sid := cookie("sid")
		token, ok := s.csrf[sid]
		switch {
		case !ok:
			http.Error(w, "not logged in", http.StatusUnauthorized)
		case r.Header.Get("X-CSRF") != token || r.Header.Get("X-Sid") != sid:
			http.Error(w, "bad csrf token", http.StatusForbidden)
		case r.URL.Path == "/items" && cookie("visited") != "":
			http.Error(w, "visited cookie of an earlier iteration", http.StatusConflict)
		case r.URL.Path == "/again" && cookie("visited") != "yes":
			http.Error(w, "no visited cookie from the step before", http.StatusConflict)
		default:
			s.used[sid]++
			if r.URL.Path == "/items" {
				http.SetCookie(w, &http.Cookie{Name: "visited", Value: "yes", Path: "/"})
			}
			fmt.Fprintf(w, `{"sid": %q}`, sid)
		}
	}
}

func sessionPlan(t *testing.T, noCookies bool) *scenario.Plan {
	t.Helper()
	auth := map[string]string{"X-CSRF": "{{.csrf}}", "X-Sid": "{{.sid}}"}
	steps := []config.Step{
		{Name: "items", Request: config.Request{Path: "/items", Headers: auth}, Expect: map[string]any{"sid": "{{.sid}}"}},
		{Name: "again", Request: config.Request{Path: "/again", Headers: auth}},
	}
	p, err := scenario.CompileWith([]config.Scenario{{Name: "s", Steps: steps}}, scenario.Inputs{
		Setup: &config.Setup{
			Run: []config.Step{{Name: "tenant", Request: config.Request{Method: "POST", Path: "/tenant"}}},
			VU: []config.Step{{Name: "login", Request: config.Request{Method: "POST", Path: "/login", Status: http.StatusFound},
				Save: map[string]config.SaveFrom{
					"csrf": {From: config.SaveHeader, Name: "x-csrf-token"},
					"sid":  {From: config.SaveCookie, Name: "sid"},
				}}},
		},
		NoCookies: noCookies,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Each VU logs in once with the run's cookie and then sends its own
// session cookie with every request, the values saved from the login's
// header and cookie beside it; an iteration's own cookies end with it.
func TestCookieJarPerVirtualUser(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		s := newSessionServer()
		srv := server(t, s.ServeHTTP)
		// 1 s: a CI run of every package at once once measured no request
		// in 300 ms; 10 requests hold with headroom in either client
		opt := closedOpts(3, 50*time.Millisecond, time.Second)
		opt.Client = client
		r := run(t, sessionPlan(t, false), srv.URL, opt)
		if r.Requests.Total < 10 || r.Requests.Failed != 0 || r.Iterations.Succeeded != r.Iterations.Completed {
			t.Errorf("requests %+v iterations %+v errors %+v; want every iteration to pass in its VU's session", r.Requests, r.Iterations, r.Errors)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.runLogin != 1 || len(s.csrf) != 3 {
			t.Errorf("%d run logins and %d user logins, want 1 and 3 (one per VU)", s.runLogin, len(s.csrf))
		}
		if len(s.used) != 3 {
			t.Errorf("requests by session %v, want each of the 3 VUs' sessions", s.used)
		}
	})
}

// With the jar off no cookie goes back: the login that needs the run's
// cookie is refused, and setup says so.
func TestCookiesOffSendsNone(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		s := newSessionServer()
		srv := server(t, s.ServeHTTP)
		opt := closedOpts(2, 50*time.Millisecond, 200*time.Millisecond)
		opt.Client = client
		_, err := Run(context.Background(), sessionPlan(t, true), srv.URL, opt)
		var se *SetupError
		if !errors.As(err, &se) || se.Stage != scenario.SetupVU || se.Step != "login" {
			t.Fatalf("Run = %v, want the login's setup error (no tenant cookie sent)", err)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.runLogin != 1 || len(s.csrf) != 0 {
			t.Errorf("%d run logins, %d user logins; want 1 and none", s.runLogin, len(s.csrf))
		}
	})
}
