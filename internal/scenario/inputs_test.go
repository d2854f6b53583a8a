package scenario

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func step(name, path string) config.Step {
	return config.Step{Name: name, Request: config.Request{Method: "GET", Path: path}}
}

func TestEnvTemplatesReadTheGivenEnvironment(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	s := step("a", `/items?k={{env "API_KEY"}}`)
	s.Headers = map[string]string{"Authorization": `Bearer {{env "API_TOKEN"}}`}
	p, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{s}}},
		Inputs{Getenv: env(map[string]string{"API_TOKEN": "tok-123", "API_KEY": "k1"})})
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.NewExecutor(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, x, srv, 0)
	if got.Header.Get("Authorization") != "Bearer tok-123" || got.Query != "k=k1" {
		t.Errorf("sent Authorization %q query %q", got.Header.Get("Authorization"), got.Query)
	}
}

// Inputs.Mask hears each value the templates read, once per variable
// however many templates read it, setup's too, and nothing else: not the
// variables no template reads.
func TestMaskIsToldEachEnvValueOnce(t *testing.T) {
	t.Parallel()
	a, b := step("a", `/a?k={{env "API_KEY"}}`), step("b", `/b?k={{env "API_KEY"}}`)
	b.Headers = map[string]string{"Authorization": `Bearer {{env "API_TOKEN"}}`}
	login := step("login", `/login?pw={{env "PASSWORD"}}`)
	var told []string
	_, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{a, b}}}, Inputs{
		Setup:  &config.Setup{VU: []config.Step{login}},
		Getenv: env(map[string]string{"API_TOKEN": "tok-123", "API_KEY": "k1", "PASSWORD": "pw-9", "UNREAD": "u"}),
		Mask:   func(v string) { told = append(told, v) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(told, " ") != "pw-9 k1 tok-123" {
		t.Errorf("Mask was told %q, want each value read once, in the order first read", told)
	}
}

func TestEnvAndFeedMistakesFailTheCompile(t *testing.T) {
	t.Parallel()
	feed := &config.Feed{File: "users.csv", Per: config.FeedPerVU, AtEnd: config.FeedWrap,
		Columns: []string{"user", "email"}, Rows: [][]string{{"ann", "a@x"}}}
	perIteration := *feed
	perIteration.Per = config.FeedPerIteration
	cases := []struct {
		name  string
		path  string
		setup *config.Setup
		feed  *config.Feed
		want  string
	}{
		{"unset variable", `/{{env "NOPE"}}`, nil, nil, `{{env "NOPE"}}: NOPE is not set (or empty) in tailgate's environment`},
		{"empty variable", `/{{env "EMPTY"}}`, nil, nil, "EMPTY is not set (or empty)"},
		{"name not quoted", `/{{env .x}}`, nil, nil, `env takes one quoted name, as in {{env "API_TOKEN"}}`},
		{"piped name", `/{{"TOKEN" | env}}`, nil, nil, "env takes one quoted name"},
		{"no feed", `/{{feed "user"}}`, nil, nil, "there is no feed"},
		{"unknown column", `/{{feed "mail"}}`, nil, feed, `users.csv has no column "mail" (columns: user, email)`},
		{"feed in setup.run", `/a`, &config.Setup{Run: []config.Step{step("login", `/l/{{feed "user"}}`)}}, feed,
			`setup.run: step "login" path: {{feed "user"}}: setup.run runs once per run`},
		{"per-iteration feed in setup.vu", `/a`, &config.Setup{VU: []config.Step{step("login", `/l/{{feed "user"}}`)}}, &perIteration,
			"so setup.vu has none; use per: vu"},
		{"unsaved in setup", `/a`, &config.Setup{VU: []config.Step{step("login", `/l/{{.token}}`)}}, nil,
			".token is not saved by an earlier step of setup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{step("a", tc.path)}}},
				Inputs{Setup: tc.setup, Feed: tc.feed, Getenv: env(map[string]string{"EMPTY": "", "TOKEN": "t"})})
			var pe *PlanError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want a *PlanError containing %q", err, tc.want)
			}
		})
	}
}

func TestFeedRowsPerVUAndPerIteration(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	rows := [][]string{{"ann"}, {"bob"}, {"cid"}}
	compile := func(per, atEnd string) *Plan {
		t.Helper()
		p, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{step("a", `/u/{{feed "user"}}`)}}},
			Inputs{Feed: &config.Feed{File: "u.csv", Per: per, AtEnd: atEnd, Columns: []string{"user"}, Rows: rows}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	perVU := compile(config.FeedPerVU, config.FeedWrap)
	for vu, want := range []string{"/u/ann", "/u/bob", "/u/cid", "/u/ann"} {
		x, err := perVU.NewExecutor(srv.URL, vu)
		if err != nil {
			t.Fatal(err)
		}
		for seq := range uint64(2) { // the row is the VU's, whatever the iteration
			if got := roundTrip(t, x, srv, seq+uint64(vu)).Path; got != want {
				t.Errorf("vu %d iteration %d: %s, want %s", vu, seq, got, want)
			}
		}
	}
	if _, err := compile(config.FeedPerVU, config.FeedFail).NewExecutor(srv.URL, 3); err == nil ||
		!strings.Contains(err.Error(), "feed u.csv ran out of rows: it has 3 and virtual user 4 needs row 4 (at_end: fail)") {
		t.Errorf("a fourth VU with three rows and at_end: fail: %v", err)
	}

	perIt := compile(config.FeedPerIteration, config.FeedWrap)
	x, err := perIt.NewExecutor(srv.URL, 7)
	if err != nil {
		t.Fatal(err)
	}
	for seq, want := range []string{"/u/ann", "/u/bob", "/u/cid", "/u/ann"} {
		if got := roundTrip(t, x, srv, uint64(seq)).Path; got != want || x.Err() != nil {
			t.Errorf("iteration %d: %s (%v), want %s", seq, got, x.Err(), want)
		}
	}
	x, err = compile(config.FeedPerIteration, config.FeedFail).NewExecutor(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Begin(2)
	if x.Err() != nil {
		t.Errorf("iteration 3 of 3 rows: %v", x.Err())
	}
	x.Begin(3)
	if x.Err() == nil || !strings.Contains(x.Err().Error(), "iteration 4 of the run needs row 4") {
		t.Errorf("iteration 4 of 3 rows with at_end: fail: %v", x.Err())
	}
}

// runSteps runs the current steps of x against srv and returns the first
// failure's message.
func runSteps(t *testing.T, x *Executor, srv *httptest.Server) string {
	t.Helper()
	for i := 0; i < x.Steps(); i++ {
		req, err := x.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		resp := send(t, srv, req)
		f, err := x.Check(i, Response{Status: resp.StatusCode, Body: resp.Body})
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			return f.Message()
		}
	}
	return ""
}

func TestSetupValuesReachEveryIteration(t *testing.T) {
	t.Parallel()
	logins := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/admin":
			w.Write([]byte(`{"key": "admin-key-0001"}`))
		case "/login":
			logins[r.Header.Get("X-Admin")]++
			w.Write([]byte(`{"token": "tok-` + r.URL.Query().Get("u") + `", "n": 42}`))
		default:
			w.Write([]byte(`{"auth": "` + r.Header.Get("Authorization") + `", "n": 42}`))
		}
	}))
	defer srv.Close()
	login := step("login", `/login?u={{vu}}`)
	login.Headers = map[string]string{"X-Admin": "{{.key}}"}
	login.Save = map[string]config.SaveFrom{"token": {Name: "token"}, "n": {Name: "n"}}
	use := step("use", "/items")
	use.Headers = map[string]string{"Authorization": "Bearer {{.token}}"}
	use.Expect = map[string]any{"auth": "Bearer {{.token}}", "n": "{{.n}}"} // a saved number matches the number
	p, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{use}}}, Inputs{Setup: &config.Setup{
		Run: []config.Step{{Name: "admin", Request: config.Request{Method: "GET", Path: "/admin"}, Save: map[string]config.SaveFrom{"key": {Name: "key"}}}},
		VU:  []config.Step{login},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasSetup(SetupRun) || !p.HasSetup(SetupVU) {
		t.Fatal("the plan lost its setup")
	}
	first, err := p.NewExecutor(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	first.BeginSetup(SetupRun)
	if msg := runSteps(t, first, srv); msg != "" {
		t.Fatal(msg)
	}
	first.EndSetup()
	run := first.Kept()
	for vu := range 3 {
		x := first
		if vu > 0 {
			if x, err = p.NewExecutor(srv.URL, vu); err != nil {
				t.Fatal(err)
			}
			x.Keep(run)
		}
		x.BeginSetup(SetupVU)
		if msg := runSteps(t, x, srv); msg != "" {
			t.Fatal(msg)
		}
		x.EndSetup()
		for seq := range uint64(3) {
			x.Begin(seq)
			if msg := runSteps(t, x, srv); msg != "" {
				t.Errorf("vu %d iteration %d: %s", vu, seq, msg)
			}
		}
		if got := x.Kept().values["token"]; got != "tok-"+string(rune('0'+vu)) {
			t.Errorf("vu %d kept token %q", vu, got)
		}
	}
	if logins["admin-key-0001"] != 3 || len(logins) != 1 {
		t.Errorf("logins by admin key %v, want 3 with the run's key", logins)
	}
}

func TestMaskHidesSecretsInEveryForm(t *testing.T) {
	t.Parallel()
	secret := `p@ss w/rd"1`
	p, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{step("a", `/x?p={{env "PW"}}`)}}},
		Inputs{Getenv: env(map[string]string{"PW": secret})})
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.NewExecutor("http://127.0.0.1:1", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{secret, `p@ss w/rd\"1`, "p%40ss+w%2Frd%221", "p@ss%20w%2Frd%221"} {
		msg := "401 bad password " + form + " for ann"
		if got := x.Mask(msg); got != "401 bad password *** for ann" {
			t.Errorf("Mask(%q) = %q", msg, got)
		}
	}
	x.Keep(Session{values: map[string]string{"token": "eyJhbGciOi.long-token", "user": "ann"}})
	if got := x.Mask(`token "eyJhbGciOi.long-token" of ann expired; p@ss w/rd"1`); got != `token "***" of ann expired; ***` {
		t.Errorf("after Keep: %q (a long kept value is masked, a short one is not)", got)
	}
}
