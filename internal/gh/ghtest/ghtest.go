// Package ghtest owns the tests' stand-in for the GitHub REST API: a
// loopback httptest server speaking the issue-comment endpoints tailgate
// uses, with GitHub's status codes, error bodies and Link pagination,
// under /api/v3 (as on GHES) so an absolute path misses. It checks each
// request's token, API version, media type and repository, keeps comments
// per issue, can stand for a read-only token or answer queued failures,
// and records every request. It imports nothing of tailgate's.
package ghtest

import (
	"cmp"
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

const (
	// BasePath is where the API lives on the server, as on GHES.
	BasePath = "/api/v3"
	// ActionsBot is the author of comments made with an Actions GITHUB_TOKEN.
	ActionsBot = "github-actions[bot]"
	// DefaultToken is the token a Server expects unless Token says otherwise.
	DefaultToken = "ghs_ghtestTOKEN"
	// APIVersion is the X-GitHub-Api-Version go-github sends.
	APIVersion = "2022-11-28"
	// mediaType begins every Accept GitHub's REST API documents (go-github
	// sends .v3+json, or a preview such as .squirrel-girl-preview).
	mediaType = "application/vnd.github"
	// MaxCommentChars is GitHub's limit on a comment body, in characters.
	MaxCommentChars = 65536
	// notAccessible is GitHub's message to a token without the permission.
	notAccessible = "Resource not accessible by integration"
)

// Server is a fake GitHub REST API. Its methods are safe for concurrent use.
type Server struct {
	t        testing.TB
	srv      *httptest.Server
	token    string
	login    string // GET /user answers this; "" answers 403 as for an Actions token
	repo     string // "owner/name" every /repos path must name; "" allows any
	readOnly bool
	pageSize int

	mu       sync.Mutex
	comments map[int][]*Comment // by issue number, oldest first
	nextID   int64
	calls    []Call
	queued   map[string][]Reply // "METHOD /path" → replies served before the handler
}

// Comment is an issue comment as the API returns it (the fields tailgate reads).
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    User   `json:"user"`
}

type User struct {
	Login string `json:"login"`
	Type  string `json:"type"` // "User" or "Bot"
}

// Call is one request as the server saw it; Path is below BasePath.
type Call struct {
	Method, Path, Query, Body string
}

// Reply is a canned answer; Body is sent as is, with a JSON content type.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

type Option func(*Server)

// Token sets the token every request must carry as "Bearer TOKEN".
func Token(token string) Option { return func(s *Server) { s.token = token } }

// Login makes GET /user answer login, as for a personal token; without it
// GET /user is 403, as for an Actions GITHUB_TOKEN, whose comments are
// ActionsBot's.
func Login(login string) Option { return func(s *Server) { s.login = login } }

// Repo makes a request for any other repository ("owner/name") fail the test.
func Repo(ownerName string) Option { return func(s *Server) { s.repo = ownerName } }

// ReadOnly answers every write with 403 "Resource not accessible by
// integration", as GitHub does for a token without pull-requests: write
// (a pull request from a fork).
func ReadOnly() Option { return func(s *Server) { s.readOnly = true } }

// New starts a Server that closes when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	s := &Server{t: t, token: DefaultToken, pageSize: 2, comments: map[int][]*Comment{},
		nextID: 100, queued: map[string][]Reply{}}
	for _, o := range opts {
		o(s)
	}
	api := http.NewServeMux()
	api.HandleFunc("GET /user", s.getUser)
	api.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}/comments", s.listComments)
	api.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	api.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("%s %s: an endpoint the fake GitHub does not serve", r.Method, r.URL.Path)
		writeJSON(w, http.StatusNotFound, message("Not Found"))
	})
	root := http.NewServeMux()
	root.Handle(BasePath+"/", http.StripPrefix(BasePath, s.gate(api)))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the API base path %s: %s %s (an absolute endpoint URL?)", BasePath, r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	s.srv = httptest.NewServer(root)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API's base URL, as GITHUB_API_URL would give it (no slash).
func (s *Server) URL() string { return s.srv.URL + BasePath }

func (s *Server) HTTPClient() *http.Client { return s.srv.Client() }

func (s *Server) Token() string { return s.token }

// Queue makes the next requests to key ("METHOD /path", the path below
// BasePath) get replies, in order, before the real handler answers again.
func (s *Server) Queue(key string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queued[key] = append(s.queued[key], replies...)
}

// Seed adds a comment by login to issue number and returns its id.
func (s *Server) Seed(number int, login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(number, cmp.Or(s.repo, "o/r"), login, body).ID
}

// Comments returns copies of issue number's comments, oldest first.
func (s *Server) Comments(number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Comment, len(s.comments[number]))
	for i, c := range s.comments[number] {
		out[i] = *c
	}
	return out
}

// Authored returns copies of issue number's comments whose author is the
// token's (the login, or ActionsBot), oldest first.
func (s *Server) Authored(number int) []Comment {
	var out []Comment
	for _, c := range s.Comments(number) {
		if c.User.Login == s.actingLogin() {
			out = append(out, c)
		}
	}
	return out
}

func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count counts the requests matching key: "METHOD" alone, or
// "METHOD /path" with the path below BasePath.
func (s *Server) Count(key string) int {
	method, path, exact := strings.Cut(key, " ")
	n := 0
	for _, c := range s.Calls() {
		if c.Method == method && (!exact || c.Path == path) {
			n++
		}
	}
	return n
}

// gate records each request, checks what every request must carry, and
// serves queued replies and the read-only token's refusals.
func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		key := r.Method + " " + r.URL.Path
		s.mu.Lock()
		s.calls = append(s.calls, Call{r.Method, r.URL.Path, r.URL.RawQuery, string(body)})
		var reply *Reply
		if q := s.queued[key]; len(q) > 0 {
			reply, s.queued[key] = &q[0], q[1:]
		}
		s.mu.Unlock()
		if got := r.Header.Get("Authorization"); got != "Bearer "+s.token {
			s.t.Errorf("%s: Authorization %q, want the bearer token", key, redact(got))
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials",
				"documentation_url": "https://docs.github.com/rest"})
			return
		}
		if got := r.Header.Get("X-GitHub-Api-Version"); got != APIVersion {
			s.t.Errorf("%s: X-GitHub-Api-Version %q, want %q", key, got, APIVersion)
		}
		if got := r.Header.Get("Accept"); !strings.HasPrefix(got, mediaType) {
			s.t.Errorf("%s: Accept %q, want a %s media type", key, got, mediaType)
		}
		if s.repo != "" && r.URL.Path != "/user" && !strings.HasPrefix(r.URL.Path, "/repos/"+s.repo+"/") {
			s.t.Errorf("%s: not the repository %s", key, s.repo)
		}
		switch {
		case reply != nil:
			for k, v := range reply.Header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(reply.Status)
			io.WriteString(w, reply.Body)
		case s.readOnly && r.Method != http.MethodGet:
			writeJSON(w, http.StatusForbidden, map[string]string{"message": notAccessible,
				"documentation_url": "https://docs.github.com/rest/issues/comments"})
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// redact keeps a wrong token out of the test log.
func redact(auth string) string {
	if scheme, _, ok := strings.Cut(auth, " "); ok {
		return scheme + " …"
	}
	return auth
}

func (s *Server) add(number int, ownerName, login, body string) *Comment {
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, User: User{Login: login, Type: "User"},
		HTMLURL: fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", ownerName, number, s.nextID)}
	if strings.HasSuffix(login, "[bot]") {
		c.User.Type = "Bot"
	}
	s.comments[number] = append(s.comments[number], c)
	return c
}

// actingLogin is whom the token acts as when it writes.
func (s *Server) actingLogin() string {
	if s.login == "" {
		return ActionsBot
	}
	return s.login
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	if s.login == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": notAccessible,
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user"})
		return
	}
	writeJSON(w, http.StatusOK, User{Login: s.login, Type: "User"})
}

// listComments serves one page: per_page (default 30) capped at the page
// size, and a Link header with the next and last pages while more remain.
func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	number, ok := s.issueNumber(w, r)
	if !ok {
		return
	}
	perPage := min(max(atoiOr(r.URL.Query().Get("per_page"), 30), 1), s.pageSize)
	page := max(atoiOr(r.URL.Query().Get("page"), 1), 1)
	s.mu.Lock()
	all := s.comments[number]
	lo, hi := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	body, _ := json.Marshal(append([]*Comment{}, all[lo:hi]...))
	last := max((len(all)+perPage-1)/perPage, 1)
	s.mu.Unlock()
	if hi < len(all) {
		link := func(p int) string {
			return fmt.Sprintf("%s%s?page=%d&per_page=%d", s.URL(), r.URL.Path, p, perPage)
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s>; rel="last"`, link(page+1), link(last)))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(body)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	number, ok := s.issueNumber(w, r)
	if !ok {
		return
	}
	text, ok := s.commentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	c := *s.add(number, r.PathValue("owner")+"/"+r.PathValue("repo"), s.actingLogin(), text)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

// editComment edits a comment by the token's author; tailgate must never
// try another's, so that fails the test (and GitHub would refuse it).
func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.t.Errorf("PATCH %s: bad comment id", r.URL.Path)
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return
	}
	text, ok := s.commentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, list := range s.comments {
		for _, c := range list {
			switch {
			case c.ID != id:
				continue
			case c.User.Login != s.actingLogin():
				s.t.Errorf("PATCH of comment %d by %s: only the token's own comments may be edited", id, c.User.Login)
				writeJSON(w, http.StatusForbidden, message(notAccessible))
			default:
				c.Body = text
				writeJSON(w, http.StatusOK, c)
			}
			return
		}
	}
	writeJSON(w, http.StatusNotFound, message("Not Found"))
}

// commentBody reads {"body": …}: empty is the test's failure, too long is
// GitHub's 422.
func (s *Server) commentBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		s.t.Errorf("%s %s: body %v, want JSON with a body", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusUnprocessableEntity, message("Invalid request"))
		return "", false
	}
	if len([]rune(in.Body)) > MaxCommentChars {
		writeJSON(w, http.StatusUnprocessableEntity, message(fmt.Sprintf("Body is too long (maximum is %d characters)", MaxCommentChars)))
		return "", false
	}
	return in.Body, true
}

func (s *Server) issueNumber(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || n <= 0 {
		s.t.Errorf("%s %s: issue number %q is not positive", r.Method, r.URL.Path, r.PathValue("number"))
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return 0, false
	}
	return n, true
}

func message(text string) map[string]string { return map[string]string{"message": text} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
