package gh

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeGitHub serves the REST paths tailgate uses under a non-empty base path
// (/api/v3, as on GHES), so a request built from an absolute path misses.
// Pages hold at most pageSize comments so Link pagination is exercised.
type fakeGitHub struct {
	t        *testing.T
	srv      *httptest.Server
	token    string
	login    string // GET /user answers this login; "" answers 403 like an Actions token
	pageSize int

	mu       sync.Mutex
	comments map[int][]*fakeComment // by PR number, oldest first
	nextID   int64
	calls    []fakeCall
	queued   map[string][]fakeReply // "METHOD /path" → replies served before the real handler
}

type fakeComment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
	HTMLURL string `json:"html_url"`
}

type fakeCall struct {
	Method, Path, Query, Body string
}

type fakeReply struct {
	status int
	header map[string]string
	body   string
}

const basePath = "/api/v3"

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, token: "test-token", pageSize: 2, comments: map[int][]*fakeComment{},
		nextID: 100, queued: map[string][]fakeReply{}}
	api := http.NewServeMux()
	api.HandleFunc("GET /user", f.getUser)
	api.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}/comments", f.listComments)
	api.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", f.createComment)
	api.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", f.editComment)
	root := http.NewServeMux()
	root.Handle(basePath+"/", http.StripPrefix(basePath, f.record(api)))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the API base path: %s %s (an absolute endpoint URL?)", r.Method, r.URL.Path)
		http.Error(w, "not under "+basePath, http.StatusNotFound)
	})
	f.srv = httptest.NewServer(root)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) apiURL() string { return f.srv.URL + basePath }

// record logs every call, checks the token, and serves queued replies.
func (f *fakeGitHub) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if got := r.Header.Get("Authorization"); got != "Bearer "+f.token {
			f.t.Errorf("%s %s: Authorization %q, want the bearer token", r.Method, r.URL.Path, got)
		}
		key := r.Method + " " + r.URL.Path
		f.mu.Lock()
		f.calls = append(f.calls, fakeCall{r.Method, r.URL.Path, r.URL.RawQuery, string(body)})
		var reply *fakeReply
		if q := f.queued[key]; len(q) > 0 {
			reply, f.queued[key] = &q[0], q[1:]
		}
		f.mu.Unlock()
		if reply != nil {
			for k, v := range reply.header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.status)
			io.WriteString(w, reply.body)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// queue makes the next calls to "METHOD /path" get replies, in order.
func (f *fakeGitHub) queue(key string, replies ...fakeReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queued[key] = append(f.queued[key], replies...)
}

// seed adds a comment by login to pr and returns its id.
func (f *fakeGitHub) seed(pr int, login, body string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(pr, login, body).ID
}

func (f *fakeGitHub) add(pr int, login, body string) *fakeComment {
	f.nextID++
	c := &fakeComment{ID: f.nextID, Body: body,
		HTMLURL: fmt.Sprintf("https://github.example/o/r/pull/%d#issuecomment-%d", pr, f.nextID)}
	c.User.Login, c.User.Type = login, "User"
	if strings.HasSuffix(login, "[bot]") {
		c.User.Type = "Bot"
	}
	f.comments[pr] = append(f.comments[pr], c)
	return c
}

func (f *fakeGitHub) callLog() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

// count returns how many calls matched method and path.
func (f *fakeGitHub) count(method, path string) int {
	n := 0
	for _, c := range f.callLog() {
		if c.Method == method && c.Path == path {
			n++
		}
	}
	return n
}

func (f *fakeGitHub) prComments(pr int) []fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]fakeComment, len(f.comments[pr]))
	for i, c := range f.comments[pr] {
		out[i] = *c
	}
	return out
}

// actingLogin is whom the token acts as when it writes.
func (f *fakeGitHub) actingLogin() string {
	if f.login == "" {
		return ActionsBotLogin
	}
	return f.login
}

func (f *fakeGitHub) getUser(w http.ResponseWriter, r *http.Request) {
	if f.login == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"login": f.login, "type": "User"})
}

func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	pr, ok := f.prNumber(w, r)
	if !ok {
		return
	}
	perPage := min(atoiOr(r.URL.Query().Get("per_page"), 30), f.pageSize)
	page := max(atoiOr(r.URL.Query().Get("page"), 1), 1)
	f.mu.Lock()
	all := f.comments[pr]
	lo, hi := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	body, _ := json.Marshal(all[lo:hi])
	f.mu.Unlock()
	if hi < len(all) {
		next := fmt.Sprintf("%s%s%s?page=%d&per_page=%d", f.srv.URL, basePath, r.URL.Path, page+1, perPage)
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	pr, ok := f.prNumber(w, r)
	if !ok {
		return
	}
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		f.t.Errorf("POST %s: body %v, want JSON with a body", r.URL.Path, err)
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Invalid request"})
		return
	}
	if len([]rune(in.Body)) > 65536 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Body is too long (maximum is 65536 characters)"})
		return
	}
	f.mu.Lock()
	c := f.add(pr, f.actingLogin(), in.Body)
	out := *c
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		f.t.Errorf("PATCH %s: bad comment id", r.URL.Path)
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	var in struct{ Body string }
	json.NewDecoder(r.Body).Decode(&in)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, list := range f.comments {
		for _, c := range list {
			if c.ID != id {
				continue
			}
			if c.User.Login != f.actingLogin() {
				writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
				return
			}
			c.Body = in.Body
			writeJSON(w, http.StatusOK, c)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func (f *fakeGitHub) prNumber(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || n <= 0 {
		f.t.Errorf("%s %s: issue number %q is not positive", r.Method, r.URL.Path, r.PathValue("number"))
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return 0, false
	}
	return n, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
