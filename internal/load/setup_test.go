package load

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// authServer issues a token per login and answers /items only to a
// token it issued; /admin hands out the key that /login requires.
type authServer struct {
	adminCalls, logins atomic.Int64
	mu                 sync.Mutex
	tokens             map[string]string // token → user
	itemsByUser        map[string]int64
}

const adminKey = "admin-key-7a31"

func newAuthServer() *authServer {
	return &authServer{tokens: map[string]string{}, itemsByUser: map[string]int64{}}
}

func (s *authServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/admin":
		s.adminCalls.Add(1)
		fmt.Fprintf(w, `{"key": %q}`, adminKey)
	case "/login":
		if r.Header.Get("X-Admin-Key") != adminKey {
			http.Error(w, "no admin key", http.StatusForbidden)
			return
		}
		if pw := r.Header.Get("X-Password"); pw != "right" {
			http.Error(w, fmt.Sprintf(`{"error": "wrong password %s"}`, pw), http.StatusUnauthorized)
			return
		}
		n := s.logins.Add(1)
		user := r.URL.Query().Get("user")
		token := fmt.Sprintf("token-%04d-%s", n, user)
		s.mu.Lock()
		s.tokens[token] = user
		s.mu.Unlock()
		fmt.Fprintf(w, `{"token": %q, "user": %q}`, token, user)
	default:
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		user, ok := s.tokens[token]
		if ok {
			s.itemsByUser[user]++
		}
		s.mu.Unlock()
		if !ok {
			http.Error(w, fmt.Sprintf("token %q is not valid", token), http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"user": %q}`, user)
	}
}

// authPlan logs in once per run (the admin key) and once per VU (a user
// of the feed), then lists items as that user.
func authPlan(t *testing.T, password string, feed *config.Feed) *scenario.Plan {
	t.Helper()
	login := config.Step{Name: "login", Request: config.Request{Method: "POST", Path: `/login?user={{feed "user"}}`,
		Headers: map[string]string{"X-Admin-Key": "{{.key}}", "X-Password": `{{env "PASSWORD"}}`}},
		Save: map[string]config.SaveFrom{"token": {Name: "token"}}, Expect: map[string]any{"user": `{{feed "user"}}`}}
	list := config.Step{Name: "list", Request: config.Request{Path: "/items", Headers: map[string]string{"Authorization": "Bearer {{.token}}"}},
		Expect: map[string]any{"user": `{{feed "user"}}`}}
	p, err := scenario.CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{list}}}, scenario.Inputs{
		Setup:  &config.Setup{Run: []config.Step{{Name: "admin", Request: config.Request{Path: "/admin"}, Save: map[string]config.SaveFrom{"key": {Name: "key"}}}}, VU: []config.Step{login}},
		Feed:   feed,
		Getenv: func(k string) string { return map[string]string{"PASSWORD": password}[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func users(n int, per, atEnd string) *config.Feed {
	f := &config.Feed{File: "users.csv", Per: per, AtEnd: atEnd, Columns: []string{"user"}}
	for i := range n {
		f.Rows = append(f.Rows, []string{fmt.Sprintf("user-%02d", i+1)})
	}
	return f
}

// Setup runs once per run and once per VU (or open-model worker), before
// and outside the measured window; every iteration uses its VU's token.
func TestSetupRunsOncePerRunAndPerVU(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		for _, model := range []string{Closed, Open} {
			s := newAuthServer()
			srv := server(t, s.ServeHTTP)
			opt := closedOpts(3, 100*time.Millisecond, 400*time.Millisecond)
			if model == Open {
				opt = openOpts(100, 3, 100*time.Millisecond, 400*time.Millisecond)
			}
			opt.Client = client
			r := run(t, authPlan(t, "right", users(5, config.FeedPerVU, config.FeedWrap)), srv.URL, opt)
			if s.adminCalls.Load() != 1 || s.logins.Load() != 3 {
				t.Errorf("%s: %d run setups and %d logins, want 1 and 3 (one per VU)", model, s.adminCalls.Load(), s.logins.Load())
			}
			// A closed VU loops for the whole window; an open worker only
			// takes what the schedule offers, and on a loaded machine most
			// of 40 scheduled iterations may be dropped before it does.
			least := int64(10)
			if model == Open {
				least = 1
			}
			if r.Requests.Total < least || r.Requests.Failed != 0 || r.Iterations.Succeeded != r.Iterations.Completed {
				t.Errorf("%s: requests %+v iterations %+v errors %+v; want every iteration to pass with its VU's token", model, r.Requests, r.Iterations, r.Errors)
			}
			if len(r.Steps) != 1 || r.Steps[0].Name != "list" {
				t.Errorf("%s: steps %+v, want only the measured step (setup is not measured)", model, r.Steps)
			}
			s.mu.Lock()
			for user := range s.itemsByUser {
				if user != "user-01" && user != "user-02" && user != "user-03" {
					t.Errorf("%s: requests by user %v, want only users 1–3 (a row per VU)", model, s.itemsByUser)
				}
			}
			if model == Closed && len(s.itemsByUser) != 3 {
				t.Errorf("%s: requests by user %v, want each of the 3 VUs' users", model, s.itemsByUser)
			}
			s.mu.Unlock()
		}
	})
}

func TestAFailedSetupFailsTheRunWithoutTheSecret(t *testing.T) {
	t.Parallel()
	s := newAuthServer()
	srv := server(t, s.ServeHTTP)
	_, err := Run(context.Background(), authPlan(t, "s3cret-pw", users(5, config.FeedPerVU, config.FeedWrap)), srv.URL, closedOpts(2, 0, 300*time.Millisecond))
	var se *SetupError
	if !errors.As(err, &se) || se.Stage != scenario.SetupVU || se.Step != "login" || se.VU < 1 {
		t.Fatalf("got %v, want a setup.vu error of step login", err)
	}
	msg := err.Error()
	for _, want := range []string{`setup.vu step "login" (virtual user`, "POST /login?user=user-0", `→ 401 {"error": "wrong password ***"} (want 2xx)`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "s3cret-pw") {
		t.Errorf("the error shows the password: %s", msg)
	}
}

func TestErrorSamplesMaskSecretsAndTokens(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		s := newAuthServer()
		// After the first few requests the server forgets every token:
		// each later request is refused with a message quoting its token.
		var items atomic.Int64
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/items" && items.Add(1) == 4 {
				s.mu.Lock()
				clear(s.tokens)
				s.mu.Unlock()
			}
			s.ServeHTTP(w, r)
		})
		plan := authPlan(t, "right", users(2, config.FeedPerVU, config.FeedWrap))
		opt := closedOpts(2, 0, 300*time.Millisecond)
		opt.Client = client
		r := run(t, plan, srv.URL, opt)
		if len(r.Errors) != 1 || r.Errors[0].Class != result.ErrStatus {
			t.Fatalf("errors %+v, want one status class", r.Errors)
		}
		if got := r.Errors[0].Sample; !strings.Contains(got, `401 token "***" is not valid`) || strings.Contains(got, "token-0") {
			t.Errorf("sample %q, want the token masked", got)
		}
	})
}

func TestFeedThatRunsOutFailsTheRun(t *testing.T) {
	t.Parallel()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("{}")) })
	f := users(5, config.FeedPerIteration, config.FeedFail)
	plan := compilePlan(t, oneStepFeed(), f)
	_, err := Run(context.Background(), plan, srv.URL, closedOpts(2, 0, 2*time.Second))
	// Two VUs take rows at once: the error names the first iteration past
	// the rows that reached the feed, the 6th or one just after it.
	var n int // the iteration named, 0 when the error is not the feed's
	if m := ranOut.FindStringSubmatch(fmt.Sprint(err)); m != nil && m[1] == m[2] {
		n, _ = strconv.Atoi(m[1])
	}
	if n < 6 || n > 7 {
		t.Errorf("got %v, want the run to fail when the rows run out (at iteration 6 or 7)", err)
	}
	f.AtEnd = config.FeedWrap
	r := run(t, compilePlan(t, oneStepFeed(), f), srv.URL, closedOpts(2, 0, 200*time.Millisecond))
	if r.Iterations.Completed <= 5 || r.Requests.Failed != 0 {
		t.Errorf("wrap: iterations %+v, want more than the 5 rows, all passing", r.Iterations)
	}
	// Per VU with at_end: fail, a VU without a row of its own fails the
	// run before any request.
	_, err = Run(context.Background(), compilePlan(t, oneStepFeed(), users(1, config.FeedPerVU, config.FeedFail)), srv.URL, closedOpts(2, 0, 200*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "virtual user 2 needs row 2") {
		t.Errorf("2 VUs, 1 row, at_end: fail: %v", err)
	}
}

var ranOut = regexp.MustCompile(`feed users\.csv ran out of rows: it has 5 and iteration (\d+) of the run needs row (\d+) \(at_end: fail\)`)

func oneStepFeed() config.Scenario {
	return config.Scenario{Name: "s", Steps: []config.Step{{Name: "get", Request: config.Request{Path: `/u/{{feed "user"}}`}}}}
}

func compilePlan(t *testing.T, sc config.Scenario, f *config.Feed) *scenario.Plan {
	t.Helper()
	p, err := scenario.CompileWith([]config.Scenario{sc}, scenario.Inputs{Feed: f})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A setup cache carries the logins from one run to the next on the same
// target: the second and third windows log in no one, and their
// iterations still pass with the first window's tokens; a fourth VU the
// earlier runs did not have logs in once.
func TestSetupCacheReusesLoginsAcrossRuns(t *testing.T) {
	t.Parallel()
	s := newAuthServer()
	srv := server(t, s.ServeHTTP)
	plan := authPlan(t, "right", users(5, config.FeedPerVU, config.FeedWrap))
	cache := &SetupCache{}
	for i := range 3 {
		opt := closedOpts(3, 50*time.Millisecond, 200*time.Millisecond)
		opt.Setup = cache
		r := run(t, plan, srv.URL, opt)
		if r.Requests.Total < 3 || r.Requests.Failed != 0 {
			t.Errorf("run %d: requests %+v errors %+v; want every request to pass with the kept tokens", i+1, r.Requests, r.Errors)
		}
	}
	if s.adminCalls.Load() != 1 || s.logins.Load() != 3 {
		t.Errorf("3 runs with one cache: %d run setups and %d logins, want 1 and 3", s.adminCalls.Load(), s.logins.Load())
	}
	opt := closedOpts(4, 50*time.Millisecond, 200*time.Millisecond)
	opt.Setup = cache
	if r := run(t, plan, srv.URL, opt); r.Requests.Failed != 0 || s.logins.Load() != 4 {
		t.Errorf("a fourth VU: %d logins in all, failed %d; want one more login", s.logins.Load(), r.Requests.Failed)
	}
}

// endSessions ends every session, as a reset that restores the database
// or a restart of a process that keeps its sessions in memory does.
func (s *authServer) endSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// After a reset or a restart (Recheck) a kept session is reused when it
// still holds, and a worker whose session the service ended logs in again
// after its first iteration fails; once a recheck found every session
// ended, the cache stops reusing them (the service keeps none).
func TestSetupCacheRecheckRenewsEndedSessions(t *testing.T) {
	t.Parallel()
	s := newAuthServer()
	srv := server(t, s.ServeHTTP)
	plan := authPlan(t, "right", users(5, config.FeedPerVU, config.FeedWrap))
	cache := &SetupCache{}
	window := func(what string, wantFailed, wantLogins int64) {
		t.Helper()
		opt := closedOpts(3, 0, 200*time.Millisecond)
		opt.Setup = cache
		r := run(t, plan, srv.URL, opt)
		if r.Requests.Failed != wantFailed || s.logins.Load() != wantLogins || r.Requests.Total < 3+wantFailed {
			t.Errorf("%s: %d failed of %d requests, %d logins in all; want %d failed and %d logins (errors %+v)",
				what, r.Requests.Failed, r.Requests.Total, s.logins.Load(), wantFailed, wantLogins, r.Errors)
		}
	}
	window("first window", 0, 3)
	cache.Recheck() // e.g. the next block, its sessions kept by the service
	window("recheck, sessions held", 0, 3)
	cache.Confirmed()
	if renewed, watched := cache.Renewed(); renewed != 0 || watched != 3 {
		t.Errorf("renewed %d of %d watched, want 0 of 3", renewed, watched)
	}
	if s.adminCalls.Load() != 2 {
		t.Errorf("%d run setups, want 2: the run's setup runs again after a recheck", s.adminCalls.Load())
	}

	s.endSessions()
	cache.Recheck()
	window("recheck, sessions ended", 3, 6) // each VU's first iteration fails, then it logs in again
	cache.Confirmed()
	window("after the recheck", 0, 6)
	if renewed, watched := cache.Renewed(); renewed != 3 || watched != 6 {
		t.Errorf("renewed %d of %d watched, want 3 of 6", renewed, watched)
	}

	s.endSessions()
	cache.Recheck() // the last recheck renewed every session: reuse is off
	window("reuse off", 0, 9)
	if renewed, watched := cache.Renewed(); renewed != 3 || watched != 6 {
		t.Errorf("renewed %d of %d watched, want still 3 of 6 (nothing watched once reuse is off)", renewed, watched)
	}
}

// In the open model a worker is not a user: workers whose logins would
// be the same (the same feed row) share one, so 12 workers over a feed of
// 4 users log in 4 times, and each iteration runs as its worker's user.
// A login that reads {{vu}} stays per worker.
func TestOpenWorkersShareLoginsByIdentity(t *testing.T) {
	t.Parallel()
	s := newAuthServer()
	srv := server(t, s.ServeHTTP)
	opt := openOpts(200, 12, 100*time.Millisecond, 300*time.Millisecond)
	r := run(t, authPlan(t, "right", users(4, config.FeedPerVU, config.FeedWrap)), srv.URL, opt)
	if s.logins.Load() != 4 {
		t.Errorf("%d logins for 12 workers over 4 feed users, want 4", s.logins.Load())
	}
	if r.Requests.Total < 10 || r.Requests.Failed != 0 {
		t.Errorf("requests %+v errors %+v; want every iteration to pass with its worker's user's token", r.Requests, r.Errors)
	}

	byVU := newAuthServer()
	srv = server(t, byVU.ServeHTTP)
	login := config.Step{Name: "login", Request: config.Request{Method: "POST", Path: "/login?user=u{{vu}}",
		Headers: map[string]string{"X-Admin-Key": adminKey, "X-Password": "right"}}, Save: map[string]config.SaveFrom{"token": {Name: "token"}}}
	list := config.Step{Name: "list", Request: config.Request{Path: "/items", Headers: map[string]string{"Authorization": "Bearer {{.token}}"}}}
	p, err := scenario.CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{list}}}, scenario.Inputs{Setup: &config.Setup{VU: []config.Step{login}}})
	if err != nil {
		t.Fatal(err)
	}
	run(t, p, srv.URL, openOpts(200, 6, 50*time.Millisecond, 100*time.Millisecond))
	if byVU.logins.Load() != 6 {
		t.Errorf("%d logins for 6 workers whose login reads {{vu}}, want 6", byVU.logins.Load())
	}

	shared := newAuthServer()
	srv = server(t, shared.ServeHTTP)
	login.Path = "/login?user=admin" // the same login for every worker
	if p, err = scenario.CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{list}}}, scenario.Inputs{Setup: &config.Setup{VU: []config.Step{login}}}); err != nil {
		t.Fatal(err)
	}
	if r := run(t, p, srv.URL, openOpts(200, 6, 50*time.Millisecond, 100*time.Millisecond)); r.Requests.Failed != 0 || shared.logins.Load() != 1 {
		t.Errorf("%d logins, %d failed requests; want 1 login all 6 workers share", shared.logins.Load(), r.Requests.Failed)
	}
}

// A worker whose session ended and whose new login fails ends the run as
// a failed setup, as its first login would have.
func TestSetupCacheRenewalThatFailsIsASetupError(t *testing.T) {
	t.Parallel()
	s := newAuthServer()
	srv := server(t, s.ServeHTTP)
	cache := &SetupCache{}
	opt := closedOpts(2, 0, 100*time.Millisecond)
	opt.Setup = cache
	run(t, authPlan(t, "right", users(2, config.FeedPerVU, config.FeedWrap)), srv.URL, opt)
	s.endSessions()
	cache.Recheck()
	_, err := Run(context.Background(), authPlan(t, "wrong", users(2, config.FeedPerVU, config.FeedWrap)), srv.URL, opt)
	var se *SetupError
	if !errors.As(err, &se) || se.Stage != scenario.SetupVU || !strings.Contains(se.What, "401") {
		t.Errorf("Run = %v, want the renewed login's setup error (401)", err)
	}
}

// One cache serves a side's phases: an open phase after a closed one
// reuses the closed VUs' logins for the users they share (after a
// recheck) and logs in only the users the closed phase lacked.
func TestSetupCacheSharedByPhases(t *testing.T) {
	t.Parallel()
	s := newAuthServer()
	srv := server(t, s.ServeHTTP)
	plan := authPlan(t, "right", users(8, config.FeedPerVU, config.FeedWrap))
	cache := &SetupCache{}
	closed := closedOpts(4, 0, 150*time.Millisecond)
	closed.Setup = cache
	run(t, plan, srv.URL, closed)
	cache.Recheck() // the open phase's reset
	open := openOpts(300, 8, 100*time.Millisecond, 200*time.Millisecond)
	open.Setup = cache
	r := run(t, plan, srv.URL, open)
	cache.Confirmed()
	if s.logins.Load() != 8 || r.Requests.Failed != 0 {
		t.Errorf("%d logins, %d failed requests; want 8 (4 closed VUs, then the open phase's users 5–8) and none failed", s.logins.Load(), r.Requests.Failed)
	}
	if renewed, watched := cache.Renewed(); renewed != 0 || watched == 0 || watched > 4 {
		t.Errorf("renewed %d of %d watched; want the closed VUs' sessions (≤ 4) reused and none renewed", renewed, watched)
	}
}
