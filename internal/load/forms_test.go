package load

import (
	"crypto/rand"
	"errors"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// blogPassword holds & and =, which a raw body would cut.
const blogPassword = "s3cr&t=pw"

// blog is a form-login app in the manner of the Flask tutorial's: a
// session cookie, forms, redirects to /, and a new post's id only in the
// HTML of the index page. lost makes it forget every session, as a
// restart of a server that keeps them in memory does.
type blog struct {
	mu       sync.Mutex
	sessions map[string]string // cookie → user
	authors  map[int]string    // post id → author
	updated  map[int]int       // post id → updates
	next     int
	lost     bool
}

func (b *blog) user(r *http.Request) string {
	c, err := r.Cookie("session")
	if err != nil || b.lost {
		return ""
	}
	return b.sessions[c.Value]
}

func (b *blog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.URL.Path == "/auth/login" && r.Method == http.MethodPost {
		if r.FormValue("password") != blogPassword || r.FormValue("username") == "" {
			w.Write([]byte("<p>Incorrect password.</p>")) // a 200, as Flask's re-rendered form
			return
		}
		tok := rand.Text()
		b.sessions[tok] = r.FormValue("username")
		http.SetCookie(w, &http.Cookie{Name: "session", Value: tok, Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/", http.StatusFound)
		return
	}
	u := b.user(r)
	if u == "" {
		http.Redirect(w, r, "/auth/login", http.StatusFound)
		return
	}
	switch id, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/update")); {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		var page strings.Builder
		for id := b.next - 1; id >= 57; id-- { // newest first; edit links on one's own posts
			fmt.Fprintf(&page, "<article><h1>post by %s</h1>", html.EscapeString(b.authors[id]))
			if b.authors[id] == u {
				fmt.Fprintf(&page, `<a class="action" href="/%d/update">Edit</a>`, id)
			}
			page.WriteString("</article>\n")
		}
		w.Write([]byte(page.String()))
	case r.URL.Path == "/create" && r.Method == http.MethodPost:
		if r.FormValue("title") == "" {
			http.Error(w, "Title is required.", http.StatusBadRequest)
			return
		}
		b.authors[b.next] = u
		b.next++
		http.Redirect(w, r, "/", http.StatusFound)
	case b.authors[id] != u:
		http.Error(w, fmt.Sprintf("post %d is not %s's", id, u), http.StatusForbidden)
	case r.Method == http.MethodGet:
		fmt.Fprintf(w, `<form method="post"><input name="title" value="post %d"></form>`, id)
	default:
		b.updated[id]++
		http.Redirect(w, r, "/", http.StatusFound)
	}
}

// blogConfig logs each virtual user in with a form, then creates a post,
// finds its id in the index page's HTML, and updates it.
const blogConfig = `
target: {url: "http://127.0.0.1:1"}
load: {rate: 1}
setup:
  vu:
    - name: login
      path: /auth/login
      form: {username: "user{{vu}}", password: '{{env "BLOG_PASSWORD"}}'}
      status: 302
      expect: {header: {Location: '^/$'}}
scenarios:
  - name: blog
    steps:
      - name: create
        path: /create
        form: {title: "post {{seq}}", body: "a & b = c"}
        status: 302
        expect: {header: {Location: '^/$'}}
      - name: index
        path: /
        save: {id: {regex: 'href="/(\d+)/update"'}}
      - name: edit
        path: "/{{.id}}/update"
      - name: update
        path: "/{{.id}}/update"
        form: {title: "post {{seq}}, edited"}
        status: 302
        expect: {header: {Location: '^/$'}}
`

func blogPlan(t *testing.T) *scenario.Plan {
	t.Helper()
	cfg, err := config.Parse("blog.yml", []byte(blogConfig))
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.CompileWith(cfg.Scenarios, scenario.Inputs{Setup: cfg.Setup,
		Getenv: func(k string) string { return map[string]string{"BLOG_PASSWORD": blogPassword}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A form-login app that names a new record only in its HTML is driven
// unmodified: the login form's password arrives intact, each iteration
// finds its own post's id in the index page and updates that post, and
// a lost session (a 302 to the login page) fails the create step's
// header expectation, where status: 302 alone would pass it.
func TestFormLoginAppNamingRecordsInHTML(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		b := &blog{sessions: map[string]string{}, authors: map[int]string{}, updated: map[int]int{}, next: 57}
		srv := httptest.NewServer(b)
		defer srv.Close()
		opt := closedOpts(3, 200*time.Millisecond, time.Second)
		opt.Client = client
		r := run(t, blogPlan(t), srv.URL, opt)
		b.mu.Lock()
		created, updates := b.next-57, slices.Collect(maps.Values(b.updated))
		b.mu.Unlock()
		t.Logf("%d iterations, %d succeeded; %d posts created, %d updated", r.Iterations.Completed, r.Iterations.Succeeded, created, len(updates))
		if r.Iterations.Completed < 10 || r.Iterations.Succeeded != r.Iterations.Completed || r.Requests.Failed != 0 {
			t.Fatalf("iterations %+v requests %+v errors %+v; want ≥ 10, every one succeeded", r.Iterations, r.Requests, r.Errors)
		}
		if slices.ContainsFunc(updates, func(n int) bool { return n != 1 }) || int64(len(updates)) < r.Iterations.Succeeded || len(updates) > created {
			t.Errorf("updates per post %v (%d posts created, %d iterations succeeded); want each post updated once, by the iteration that created it", updates, created, r.Iterations.Succeeded)
		}

		b.mu.Lock()
		b.lost = true
		b.mu.Unlock()
		r = run(t, blogPlan(t), srv.URL, closedOpts(2, 0, 300*time.Millisecond))
		if r.Iterations.Succeeded != 0 || len(r.Errors) != 1 || r.Errors[0].Step != "create" ||
			r.Errors[0].Sample != `header Location = "/auth/login", want a match of "^/$"` || r.Steps[1].Requests != 0 {
			t.Errorf("with sessions lost: iterations %+v errors %+v steps %+v; want every create failed on its Location, and no step after it sent", r.Iterations, r.Errors, r.Steps)
		}
	})
}

// A failed login names the virtual user as {{vu}} + 1, in a shard too,
// whose users follow the earlier shards'.
func TestSetupErrorNamesTheVirtualUserOfItsShard(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login/3" {
			http.Error(w, "no such user", http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	p, err := scenario.CompileWith([]config.Scenario{oneStep("ping", "/")}, scenario.Inputs{Setup: &config.Setup{
		VU: []config.Step{{Name: "login", Request: config.Request{Path: "/login/{{vu}}"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	opt := closedOpts(2, 0, 200*time.Millisecond)
	opt.FirstVU = 2 // the second of two shards of four users
	_, err = Run(t.Context(), p, srv.URL, opt)
	var se *SetupError
	if !errors.As(err, &se) || se.VU != 4 || !strings.Contains(err.Error(), "(virtual user 4)") {
		t.Errorf("got %v, want virtual user 4's login ({{vu}} 3) failed", err)
	}
}
