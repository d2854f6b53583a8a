package cli_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// articlesServiceCommand makes the test binary (see TestMain) a small
// articles service that keeps what real services keep between requests:
// unique keys that outlive the iteration. A title's slug is unique among
// all articles ever created since the last reset, deleted ones included
// (a delete is soft), and so is a sign-up's e-mail; a second one is
// refused with 422, as a database's UNIQUE constraint would be. Writing
// needs a token from POST /login (a user of the seeded users user-1 …
// user-40, password pw) or POST /admin/login.
const articlesServiceCommand = "articles-service"

// articlesLoadCommand makes the test binary a load tool (engine: command):
// it reads articles for --for and writes what it saw as hey -o csv does,
// to $TAILGATE_OUTPUT.
const articlesLoadCommand = "articles-load"

type articles struct {
	mu       sync.Mutex
	slugs    map[string]bool // slug → deleted
	emails   map[string]bool
	sessions map[string]bool
	writes   int64
}

func (a *articles) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.slugs, a.emails, a.sessions = map[string]bool{}, map[string]bool{}, map[string]bool{}
}

func serveArticles(args []string) int {
	fs := flag.NewFlagSet(articlesServiceCommand, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	pidFile := fs.String("pid-file", "", "write the pid here once listening")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	a := &articles{}
	a.reset()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /admin/reset", func(w http.ResponseWriter, r *http.Request) {
		a.reset()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /admin/count", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		fmt.Fprintf(w, `{"articles": %d, "users": %d}`, len(a.slugs), len(a.emails))
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		fmt.Fprintf(w, "# TYPE articles_writes_total counter\narticles_writes_total %d\n", a.writes)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ User, Password string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || !strings.HasPrefix(in.User, "user-") || in.Password != "pw" {
			http.Error(w, `{"error": "wrong user or password"}`, http.StatusUnauthorized)
			return
		}
		a.login(w, in.User)
	})
	mux.HandleFunc("POST /admin/login", func(w http.ResponseWriter, r *http.Request) { a.login(w, "admin") })
	mux.HandleFunc("POST /users", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Email string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || in.Email == "" {
			http.Error(w, "want an email", http.StatusBadRequest)
			return
		}
		if !a.insert(a.emails, in.Email) {
			http.Error(w, "UNIQUE constraint failed: users.email", http.StatusUnprocessableEntity)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("POST /articles", func(w http.ResponseWriter, r *http.Request) {
		if !a.signedIn(r) {
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		var in struct{ Title string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || in.Title == "" {
			http.Error(w, "want a title", http.StatusBadRequest)
			return
		}
		slug := strings.ToLower(strings.Join(strings.Fields(in.Title), "-"))
		if !a.insert(a.slugs, slug) {
			http.Error(w, "UNIQUE constraint failed: articles.slug", http.StatusUnprocessableEntity)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"slug": %q}`, slug)
	})
	mux.HandleFunc("GET /articles/{slug}", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		deleted, ok := a.slugs[r.PathValue("slug")]
		a.mu.Unlock()
		if !ok || deleted {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"slug": %q}`, r.PathValue("slug"))
	})
	mux.HandleFunc("GET /articles", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[]`) })
	mux.HandleFunc("DELETE /articles/{slug}", func(w http.ResponseWriter, r *http.Request) {
		if !a.signedIn(r) {
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if deleted, ok := a.slugs[r.PathValue("slug")]; !ok || deleted {
			http.NotFound(w, r)
			return
		}
		a.slugs[r.PathValue("slug")] = true // soft: the slug stays taken
		a.writes++
		w.WriteHeader(http.StatusNoContent)
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	if *pidFile != "" {
		if err := os.WriteFile(*pidFile, fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// insert adds key to set unless it is there already (deleted or not).
func (a *articles) insert(set map[string]bool, key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, taken := set[key]; taken {
		return false
	}
	set[key] = false
	a.writes++
	return true
}

func (a *articles) login(w http.ResponseWriter, user string) {
	token := fmt.Sprintf("%s-%d", user, time.Now().UnixNano())
	a.mu.Lock()
	a.sessions[token] = true
	a.mu.Unlock()
	fmt.Fprintf(w, `{"token": %q}`, token)
}

func (a *articles) signedIn(r *http.Request) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
}

// articlesLoad reads /articles from $TAILGATE_TARGET_URL for --for with
// two connections and writes every response as hey -o csv does.
func articlesLoad(args []string) int {
	fs := flag.NewFlagSet(articlesLoadCommand, flag.ContinueOnError)
	d := fs.Duration("for", 300*time.Millisecond, "how long to load")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	url, out := os.Getenv("TAILGATE_TARGET_URL"), os.Getenv("TAILGATE_OUTPUT")
	var mu sync.Mutex
	var b strings.Builder
	b.WriteString("response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n")
	began := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for n := 0; n < 10000 && time.Since(began) < *d; n++ {
				at := time.Now()
				resp, err := http.Get(url + "/articles")
				if err != nil {
					continue
				}
				resp.Body.Close()
				mu.Lock()
				fmt.Fprintf(&b, "%.4f,0,0,0,0,0,%d,%.4f\n", time.Since(at).Seconds(), resp.StatusCode, at.Sub(began).Seconds())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
