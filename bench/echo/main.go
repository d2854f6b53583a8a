// Command echo is the fixed target of the peer benchmark (bench/peers): a
// minimal HTTP server that answers 200 "ok" on any path and method, so that
// what differs between runs is only the load generator. GET /__echo/count
// answers the number of other requests served so far: the script reads it
// before and after each generator to know how many requests that generator
// really completed, warm-up included, whatever the tool itself reports.
//
//	go run ./bench/echo -addr 127.0.0.1:8088
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8088", "loopback `host:port` to listen on")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	if err := checkLoopback(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: &okHandler{}, ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-stop
		_ = srv.Close()
	}()
	fmt.Fprintf(os.Stderr, "echo: listening on %s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// countPath answers the request count; it is not counted itself.
const countPath = "/__echo/count"

// okHandler answers "ok" and counts what it answered.
type okHandler struct{ served atomic.Int64 }

var _ http.Handler = (*okHandler)(nil)

var okBody = []byte("ok")

// ServeHTTP writes a fixed two-byte body; a small request body, if any, is
// drained by net/http so the connection is reused.
func (h *okHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == countPath {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(strconv.AppendInt(nil, h.served.Load(), 10))
		return
	}
	h.served.Add(1)
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", "2")
	_, _ = w.Write(okBody)
}

// checkLoopback refuses any address that is not on this machine: the
// benchmark only ever loads loopback.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w; expected host:port such as 127.0.0.1:8088", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %q: host must be a loopback address (127.0.0.0/8, ::1 or localhost)", addr)
	}
	return nil
}
