package scenario

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// pageServer answers /page with an HTML page naming record 57 and a
// Location header, /bare with neither, and echoes a form it is sent.
func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Location", "/items/57")
			w.Write([]byte(`<ul><li><a href="/57/update">Edit</a></li></ul>`))
		case "/form":
			if err := r.ParseForm(); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			w.Write([]byte(r.Header.Get("Content-Type") + "|" + r.PostForm.Get("user") + "|" + r.PostForm.Get("password") + "|" + r.PostForm.Get("note")))
		default:
			w.Write([]byte(`<p>nothing here</p>`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A saved value can be read from an HTML page or a header by a regular
// expression: its one group, or the whole match without one. A regex
// that matches nothing fails the step, naming the step and the save.
func TestSaveByRegex(t *testing.T) {
	t.Parallel()
	srv := pageServer(t)
	step := config.Step{Name: "index", Request: config.Request{Path: "/page"}, Save: map[string]config.SaveFrom{
		"id":    {From: config.SaveBody, Regex: `href="/(\d+)/update"`},
		"whole": {From: config.SaveBody, Regex: `\d+/update`},
		"loc":   {From: config.SaveHeader, Name: "Location", Regex: `/(\d+)$`},
	}}
	x, _ := firstRequest(t, mustCompile(t, step), srv.URL)
	if f := exchange(t, x, srv, 0); f != nil {
		t.Fatalf("Check: %s", f.Message())
	}
	if x.vars["id"] != "57" || x.vars["whole"] != "57/update" || x.vars["loc"] != "57" {
		t.Errorf("saved %v, want id 57, whole 57/update, loc 57", x.vars)
	}

	step.Request.Path = "/bare"
	step.Save = map[string]config.SaveFrom{"id": {From: config.SaveBody, Regex: `href="/(\d+)/update"`}}
	x, _ = firstRequest(t, mustCompile(t, step), srv.URL)
	f := exchange(t, x, srv, 0)
	want := `step "index" save id: regex "href=\"/(\\d+)/update\"" matches nothing in the body "<p>nothing here</p>"`
	if f == nil || f.Kind != ExpectationFailed || f.Message() != want {
		t.Errorf("no match in the body: %v, want %q", f, want)
	}
	step.Save = map[string]config.SaveFrom{"loc": {From: config.SaveHeader, Name: "Location", Regex: `\d+`}}
	x, _ = firstRequest(t, mustCompile(t, step), srv.URL)
	if f := exchange(t, x, srv, 0); f == nil || f.Message() != "save loc: the response has no header Location" {
		t.Errorf("no header: %v", f)
	}
}

// A form's fields are URL-encoded, templated values included, so a
// password holding & and = arrives intact; the Content-Type is set.
func TestFormIsURLEncoded(t *testing.T) {
	t.Parallel()
	srv := pageServer(t)
	const pw = "p&w=rd+% é"
	p, err := CompileWith([]config.Scenario{{Name: "s", Steps: []config.Step{{Name: "login", Request: config.Request{
		Method: "POST", Path: "/form", Form: map[string]string{"user": "u{{vu}}", "password": `{{env "PW"}}`, "note": "a&b=c"}}}}}},
		Inputs{Getenv: func(string) string { return pw }})
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.NewExecutor(srv.URL, 3)
	if err != nil {
		t.Fatal(err)
	}
	x.Begin(0)
	req, err := x.Request(0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "note=a%26b%3Dc&password=p%26w%3Drd%2B%25+%C3%A9&user=u3"; string(req.Body) != want {
		t.Errorf("body %s, want %s", req.Body, want)
	}
	resp := send(t, srv, req)
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if want := "application/x-www-form-urlencoded|u3|" + pw + "|a&b=c"; string(got) != want {
		t.Errorf("the server read %q, want %q", got, want)
	}
}

// A header expectation fails a redirect to the wrong place: a lost
// session's 302 to the login page is not the 302 to / the step expects.
func TestExpectHeader(t *testing.T) {
	t.Parallel()
	to := "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", to)
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	srv.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse } // as the load clients
	step := config.Step{Name: "create", Request: config.Request{Path: "/create", Status: 302},
		Expect: map[string]any{config.ExpectHeader: map[string]any{"location": "^/$"}}}
	x, _ := firstRequest(t, mustCompile(t, step), srv.URL)
	if f := exchange(t, x, srv, 0); f != nil {
		t.Errorf("302 to /: %s, want a pass", f.Message())
	}
	to = "/auth/login"
	x.Begin(1)
	want := `header Location = "/auth/login", want a match of "^/$"`
	if f := exchange(t, x, srv, 0); f == nil || f.Kind != ExpectationFailed || f.Status != 302 || f.Message() != want {
		t.Errorf("302 to the login page: %+v, want %q", f, want)
	}
	step.Expect = map[string]any{config.ExpectHeader: map[string]any{"X-Id": "."}}
	x, _ = firstRequest(t, mustCompile(t, step), srv.URL)
	if f := exchange(t, x, srv, 0); f == nil || !strings.Contains(f.Message(), "header X-Id: missing") {
		t.Errorf("missing header: %v", f)
	}
}

func TestCompileRejectsBadRegex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		step config.Step
		want string
	}{
		{config.Step{Name: "a", Save: map[string]config.SaveFrom{"id": {From: config.SaveBody, Regex: `(\d+`}}}, `step "a" save: variable "id": regex "(\\d+": error parsing regexp`},
		{config.Step{Name: "a", Save: map[string]config.SaveFrom{"id": {From: config.SaveBody, Regex: `(\d+)/(\w+)`}}}, "2 capturing groups"},
		{config.Step{Name: "a", Expect: map[string]any{"header": map[string]any{"Location": "[/"}}}, `step "a" expect header Location: error parsing regexp`},
	} {
		if _, err := Compile([]config.Scenario{{Name: "s", Steps: []config.Step{tc.step}}}, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile error %v, want %q", err, tc.want)
		}
	}
}

// A path may be a saved value (a link read from an answer); it must render
// a leading "/", so no value from a server can make the request name
// another host ("@host/…" after the target's URL).
func TestPathFromASavedValue(t *testing.T) {
	t.Parallel()
	srv := pageServer(t)
	index := config.Step{Name: "index", Request: config.Request{Path: "/page"},
		Save: map[string]config.SaveFrom{"loc": {From: config.SaveHeader, Name: "Location"}}}
	next := config.Step{Name: "next", Request: config.Request{Path: "{{.loc}}"}}
	for _, loc := range []string{"", "@example.org/x", "items/57"} {
		x, _ := firstRequest(t, mustCompile(t, index, next), srv.URL)
		if f := exchange(t, x, srv, 0); f != nil {
			t.Fatalf("Check: %s", f.Message())
		}
		if loc != "" {
			x.vars["loc"] = loc // as a server could have answered
		}
		req, err := x.Request(1)
		switch {
		case loc == "" && (err != nil || req.URL != srv.URL+"/items/57"):
			t.Errorf("saved /items/57: request %v, error %v; want %s/items/57", req, err, srv.URL)
		case loc != "" && (err == nil || !strings.Contains(err.Error(), "does not start with /")):
			t.Errorf("saved %q: request %v, error %v; want it refused", loc, req, err)
		}
	}
}
