package cli_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
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
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var extra atomic.Int64
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
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(*delay + time.Duration(extra.Load())):
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
