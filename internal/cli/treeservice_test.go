package cli_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// treeServiceCommand makes the test binary a small order service (see
// TestMain) whose speed its source tree decides: the policy tests of the
// cli package start it from each side's tree with --delay read from a
// file there, so that a slower "build" is a real slower service.
const treeServiceCommand = "tree-service"

// serveTreeService answers GET /orders/{id} after --delay, plus the extra
// delay POST /admin/slow?d=DURATION sets (what a dataset reset command
// of a hostile benchmark could do to one side alone), until SIGTERM.
func serveTreeService(args []string) int {
	fs := flag.NewFlagSet(treeServiceCommand, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	delay := fs.Duration("delay", 0, "time each order request takes")
	// The seal's attack tests (seal_attack_e2e_test.go): the service's data
	// files, read at every request, which the other side's code attacks.
	delayFile := fs.String("delay-file", "", "file holding the time each order request takes, read at every request (else --delay)")
	queriesFile := fs.String("queries-file", "", "file holding the queries each order request makes (else 1)")
	countersFile := fs.String("counters-file", "", `file the service keeps its queries so far in, as {"queries": N}`)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var extra, queries atomic.Int64
	fromFile := func(path string, parse func(string) error) {
		if path == "" {
			return
		}
		if data, err := os.ReadFile(path); err == nil {
			parse(strings.TrimSpace(string(data)))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /admin/slow", func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("d"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		extra.Store(int64(d))
	})
	var countersMu sync.Mutex
	keepCounters := func() {
		if *countersFile == "" {
			return
		}
		countersMu.Lock()
		defer countersMu.Unlock()
		tmp := *countersFile + ".tmp"
		if os.WriteFile(tmp, fmt.Appendf(nil, `{"queries": %d}`, queries.Load()), 0o644) == nil {
			os.Rename(tmp, *countersFile)
		}
	}
	keepCounters()
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		d, q := *delay, int64(1)
		fromFile(*delayFile, func(s string) (err error) { d, err = time.ParseDuration(s); return err })
		fromFile(*queriesFile, func(s string) (err error) { q, err = strconv.ParseInt(s, 10, 64); return err })
		queries.Add(q)
		keepCounters()
		select {
		case <-time.After(d + time.Duration(extra.Load())):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q, "state": "shipped"}`, r.PathValue("id"))
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	fmt.Fprintf(os.Stderr, "order service on %s, %v per request\n", *addr, *delay)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
