package scenario

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// exchange sends step i of x's current steps to srv and checks the
// response with its header fields, as the load clients do.
func exchange(t *testing.T, x *Executor, srv *httptest.Server, i int) *Failure {
	t.Helper()
	req, err := x.Request(i)
	if err != nil {
		t.Fatal(err)
	}
	resp := send(t, srv, req)
	defer resp.Body.Close()
	f, err := x.Check(i, Response{Status: resp.StatusCode, Body: resp.Body, Header: NetHTTPHeader(resp.Header)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Saves read a header (in any case) and a cookie the response sets; one
// the response lacks fails the step and says what was missing.
func TestSaveFromHeaderAndCookie(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			w.Header().Set("X-Csrf-Token", "tok-1")
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-1", Path: "/"})
		}
		w.Write([]byte(`{"cookie": "` + r.Header.Get("Cookie") + `"}`))
	}))
	defer srv.Close()
	login := config.Step{Name: "login", Request: config.Request{Path: "/login"}, Save: map[string]config.SaveFrom{
		"csrf": {From: config.SaveHeader, Name: "x-csrf-token"}, "sid": {From: config.SaveCookie, Name: "sid"}}}
	echo := config.Step{Name: "echo", Request: config.Request{Path: "/echo", Headers: map[string]string{"X-Echo": "{{.csrf}}"}},
		Expect: map[string]any{"cookie": "sid={{.sid}}"}}
	p, err := Compile([]config.Scenario{{Name: "s", Steps: []config.Step{login, echo}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.NewExecutor(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Begin(0)
	for i := range 2 {
		if f := exchange(t, x, srv, i); f != nil {
			t.Fatalf("step %d: %s", i, f.Message())
		}
	}
	if x.vars["csrf"] != "tok-1" || x.vars["sid"] != "s-1" {
		t.Errorf("saved %v, want csrf tok-1 and sid s-1", x.vars)
	}

	for _, from := range []string{config.SaveHeader, config.SaveCookie} {
		absent := config.Step{Name: "echo", Request: config.Request{Path: "/echo"}, // sets neither
			Save: map[string]config.SaveFrom{"v": {From: from, Name: "X-CSRF-Token"}}}
		x, _ := firstRequest(t, mustCompile(t, absent), srv.URL)
		want := "save v: the response has no " + from + " X-CSRF-Token"
		if f := exchange(t, x, srv, 0); f == nil || f.Kind != ExpectationFailed || f.Message() != want {
			t.Errorf("saving an absent %s: %v, want %q", from, f, want)
		}
	}
}

// A step that sets its own Cookie header sends it as written; with the
// jar off no cookie is kept or sent, and a cookie can still be saved.
func TestOwnCookieHeaderAndJarOff(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-1"})
		w.Write([]byte(`{"cookie": "` + r.Header.Get("Cookie") + `"}`))
	}))
	defer srv.Close()
	steps := []config.Step{
		{Name: "a", Request: config.Request{Path: "/a"}, Save: map[string]config.SaveFrom{"sid": {From: config.SaveCookie, Name: "sid"}}},
		{Name: "b", Request: config.Request{Path: "/b"}, Expect: map[string]any{"cookie": "sid=s-1"}},
		{Name: "c", Request: config.Request{Path: "/c", Headers: map[string]string{"Cookie": "mine=1"}}, Expect: map[string]any{"cookie": "mine=1"}},
	}
	for _, noCookies := range []bool{false, true} {
		p, err := CompileWith([]config.Scenario{{Name: "s", Steps: steps}}, Inputs{NoCookies: noCookies})
		if err != nil {
			t.Fatal(err)
		}
		x, err := p.NewExecutor(srv.URL, 0)
		if err != nil {
			t.Fatal(err)
		}
		x.Begin(0)
		var got []string
		for i := range 3 {
			msg := ""
			if f := exchange(t, x, srv, i); f != nil {
				msg = f.Message()
			}
			got = append(got, msg)
		}
		want := []string{"", "", ""}
		if noCookies {
			want[1] = `cookie = "", want sid=s-1`
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || x.vars["sid"] != "s-1" {
			t.Errorf("noCookies %v: failures %q, saved %v; want %q and sid saved", noCookies, got, x.vars, want)
		}
	}
}

// A session cookie kept from setup is masked in messages, as a saved
// token is.
func TestKeptCookieIsMasked(t *testing.T) {
	t.Parallel()
	p, err := Compile([]config.Scenario{{Name: "s", Steps: []config.Step{{Name: "a", Request: config.Request{Path: "/"}}}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.NewExecutor("http://127.0.0.1:1", 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Keep(Session{cookies: []cookie{{name: "sid", value: "s3ss10n-1d-0f-ann", path: "/"}}})
	if got := x.Mask("401 session s3ss10n-1d-0f-ann expired"); got != "401 session *** expired" {
		t.Errorf("Mask = %q", got)
	}
	x.Begin(0)
	req, err := x.Request(0)
	if err != nil || req.Cookie != "sid=s3ss10n-1d-0f-ann" {
		t.Errorf("Cookie %q (%v), want the kept session cookie", req.Cookie, err)
	}
}
