package publish

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gh"
)

// fakeGitHub serves the comment endpoints of the REST API under /api/v3 (as
// on GHES), answering GET /user with 403 as it does for an Actions token, so
// that the comments of ours are github-actions[bot]'s. The test passes its
// URL to gh.New: nothing reaches it through the environment.
type fakeGitHub struct {
	t          *testing.T
	srv        *httptest.Server
	denyWrites bool // a token without pull-requests: write

	mu       sync.Mutex
	comments []*fakeComment // of PR 7 of tailgate-ci/shop
	nextID   int64
	calls    []string // "METHOD /path"
}

type fakeComment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
}

const (
	fakeToken = "ghs_publishTEST"
	fakePR    = 7
	fakeBase  = "/api/v3"
)

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, nextID: 300}
	api := http.NewServeMux()
	api.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
	})
	api.HandleFunc("GET /repos/tailgate-ci/shop/issues/7/comments", f.list)
	api.HandleFunc("POST /repos/tailgate-ci/shop/issues/7/comments", f.create)
	api.HandleFunc("PATCH /repos/tailgate-ci/shop/issues/comments/{id}", f.edit)
	root := http.NewServeMux()
	root.Handle(fakeBase+"/", http.StripPrefix(fakeBase, f.check(api)))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside %s: %s %s", fakeBase, r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	f.srv = httptest.NewServer(root)
	t.Cleanup(f.srv.Close)
	return f
}

// client is a gh client for the fake, with one attempt per request.
func (f *fakeGitHub) client() *gh.Client {
	f.t.Helper()
	c, err := gh.New(fakeToken, f.srv.URL+fakeBase, gh.WithHTTPClient(f.srv.Client()), gh.WithRetries(1, 0))
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *fakeGitHub) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls = append(f.calls, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+fakeToken {
			f.t.Errorf("%s %s without the token", r.Method, r.URL.Path)
			reply(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		if f.denyWrites && r.Method != http.MethodGet {
			reply(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (f *fakeGitHub) seed(login, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.add(login, body)
}

func (f *fakeGitHub) add(login, body string) *fakeComment {
	f.nextID++
	c := &fakeComment{ID: f.nextID, Body: body, HTMLURL: fmt.Sprintf("https://github.com/tailgate-ci/shop/pull/7#issuecomment-%d", f.nextID)}
	c.User.Login = login
	f.comments = append(f.comments, c)
	return c
}

func (f *fakeGitHub) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	reply(w, http.StatusOK, f.comments)
}

func (f *fakeGitHub) create(w http.ResponseWriter, r *http.Request) {
	var in struct{ Body string }
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" {
		f.t.Errorf("POST %s without a body", r.URL.Path)
	}
	f.mu.Lock()
	c := *f.add(gh.ActionsBotLogin, in.Body)
	f.mu.Unlock()
	reply(w, http.StatusCreated, c)
}

func (f *fakeGitHub) edit(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct{ Body string }
	json.NewDecoder(r.Body).Decode(&in)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.comments {
		if c.ID == id {
			if c.User.Login != gh.ActionsBotLogin {
				f.t.Errorf("PATCH of %s's comment %d", c.User.Login, id)
			}
			c.Body = in.Body
			reply(w, http.StatusOK, c)
			return
		}
	}
	reply(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// count counts the calls with method.
func (f *fakeGitHub) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, method+" ") {
			n++
		}
	}
	return n
}

// ours returns the bodies of our comments.
func (f *fakeGitHub) ours() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.comments {
		if c.User.Login == gh.ActionsBotLogin {
			out = append(out, c.Body)
		}
	}
	return out
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
