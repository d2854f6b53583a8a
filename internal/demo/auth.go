package demo

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Users is the number of demo users: user-001 … user-100, who all log in
// with Options.Password.
const Users = 100

// UserName is the name of demo user n (1 … Users).
func UserName(n int) string { return fmt.Sprintf("user-%03d", n) }

// sessions are the bearer tokens handed out by POST /login. A reset ends
// every session, as restoring a database does: the benchmark's setup
// logs in again after each reset.
type sessions struct {
	mu     sync.Mutex
	tokens map[string]string // token → user
	log    io.Writer
}

func newSessions(log io.Writer) *sessions {
	if log == nil {
		log = io.Discard
	}
	return &sessions{tokens: map[string]string{}, log: log}
}

func (s *sessions) open(user string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(b[:])
	s.mu.Lock()
	s.tokens[token] = user
	s.mu.Unlock()
	fmt.Fprintf(s.log, "login %s\n", user) // never the password or the token
	return token
}

func (s *sessions) user(token string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.tokens[token]
	return u, ok
}

func (s *sessions) endAll() {
	s.mu.Lock()
	clear(s.tokens)
	s.mu.Unlock()
}

// knownUser reports whether name is one of the demo users.
func knownUser(name string) bool {
	var n int
	if _, err := fmt.Sscanf(name, "user-%03d", &n); err != nil {
		return false
	}
	return n >= 1 && n <= Users && UserName(n) == name
}

// handleLogin answers {"token": …, "user": …} to a demo user with the
// password, 401 otherwise.
func (s *Service) handleLogin(w http.ResponseWriter, r *http.Request) {
	if !s.opt.Auth {
		writeError(w, http.StatusNotFound, "logins are off: the service runs without auth")
		return
	}
	var in struct{ User, Password string }
	if !readBody(w, r, &in, &in.User, "user") {
		return
	}
	if !knownUser(in.User) || in.Password != s.opt.Password {
		writeError(w, http.StatusUnauthorized, "wrong user or password")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": s.sessions.open(in.User), "user": in.User})
}

// authorized wraps a complaint handler: with Options.Auth it answers only
// requests that bring a token from /login (Authorization: Bearer …), and
// a refused one is told which token was refused, as many services do.
func (s *Service) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.opt.Auth {
			h(w, r)
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			writeError(w, http.StatusUnauthorized, "Authorization: Bearer <token> required; POST /login gives one")
			return
		}
		if _, ok := s.sessions.user(token); !ok {
			writeError(w, http.StatusUnauthorized, fmt.Sprintf("token %q is not valid", token))
			return
		}
		h(w, r)
	}
}

// handleMe says who the token belongs to.
func (s *Service) handleMe(w http.ResponseWriter, r *http.Request) {
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	user, _ := s.sessions.user(token)
	writeJSON(w, http.StatusOK, map[string]string{"user": user})
}
