// Command bcryptlogin is the bcrypt-login service of tailgate's
// cheap-logins benchmark (bench/bcryptlogin): users log in with a form
// whose password is a bcrypt check, get a session cookie, and keep notes.
// Sessions are signed cookies (-sessions signed, the default: they hold
// across a restart with the same SESSION_SECRET, as JWTs and Flask's or
// Rails' cookie sessions do) or entries in the process's memory
// (-sessions memory: a restart ends them, as express-session's default
// store does).
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// Users is the number of users: user-01 … user-16.
const Users = 16

type server struct {
	hashes  map[string][]byte
	secret  []byte
	memory  bool
	mu      sync.Mutex
	live    map[string]string // memory sessions: id → user
	notes   map[string][]string
	logins  int
	counter int
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	cost := flag.Int("cost", bcrypt.DefaultCost, "bcrypt cost of the users' passwords")
	mode := flag.String("sessions", "signed", "signed (cookies that hold across restarts) or memory")
	flag.Parse()
	password := os.Getenv("APP_PASSWORD")
	secret := os.Getenv("SESSION_SECRET")
	if password == "" || secret == "" {
		log.Fatal("APP_PASSWORD and SESSION_SECRET must be set")
	}
	s := &server{hashes: map[string][]byte{}, secret: []byte(secret), memory: *mode == "memory",
		live: map[string]string{}, notes: map[string][]string{}}
	// One hash for every user: a start costs one bcrypt, not sixteen
	// (each login still checks one, as a real user table would).
	h, err := bcrypt.GenerateFromPassword([]byte(password), *cost)
	if err != nil {
		log.Fatal(err)
	}
	for i := 1; i <= Users; i++ {
		s.hashes[fmt.Sprintf("user-%02d", i)] = h
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("GET /notes", s.authed(s.list))
	mux.HandleFunc("POST /notes", s.authed(s.add))
	mux.HandleFunc("POST /reset", s.reset)
	mux.HandleFunc("GET /count", s.count)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

func (s *server) login(w http.ResponseWriter, r *http.Request) {
	user, pw := r.FormValue("username"), r.FormValue("password")
	h, ok := s.hashes[user]
	if !ok || bcrypt.CompareHashAndPassword(h, []byte(pw)) != nil {
		http.Error(w, "wrong user or password", http.StatusUnauthorized)
		return
	}
	log.Printf("login %s", user)
	s.mu.Lock()
	s.logins++
	s.counter++
	id := fmt.Sprintf("%s.%d", user, s.counter)
	if s.memory {
		s.live[id] = user
	}
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: "session", Value: id + "." + s.sign(id), Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/notes", http.StatusSeeOther)
}

func (s *server) sign(id string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// user returns the user of the request's session, "" for none.
func (s *server) user(r *http.Request) string {
	c, err := r.Cookie("session")
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(c.Value, '.')
	if i < 0 || !hmac.Equal([]byte(c.Value[i+1:]), []byte(s.sign(c.Value[:i]))) {
		return ""
	}
	id := c.Value[:i]
	if s.memory {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.live[id]
	}
	return id[:strings.IndexByte(id, '.')]
}

func (s *server) authed(h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user := s.user(r)
		if user == "" {
			http.Error(w, "log in first", http.StatusUnauthorized)
			return
		}
		h(w, r, user)
	}
}

func (s *server) list(w http.ResponseWriter, r *http.Request, user string) {
	s.mu.Lock()
	notes := s.notes[user]
	last := notes[max(0, len(notes)-10):]
	out := map[string]any{"user": user, "count": len(notes), "last": last}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *server) add(w http.ResponseWriter, r *http.Request, user string) {
	var in struct{ Text string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Text == "" {
		http.Error(w, "want {\"text\": …}", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.notes[user] = append(s.notes[user], in.Text)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]string{"user": user, "text": in.Text})
}

// reset deletes every note; sessions stay, as a database restore that
// leaves the session store alone does.
func (s *server) reset(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	clear(s.notes)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]int{"notes": 0})
}

func (s *server) count(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := 0
	for _, v := range s.notes {
		n += len(v)
	}
	logins := s.logins
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]int{"notes": n, "logins": logins})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
