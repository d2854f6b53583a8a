// Command target is the loopback service that bench/importer-fixtures/make.sh
// runs the real load tools against, so that the importers' test files are
// real output of those tools. Its answers are deterministic, counted per
// path: GET /ok answers 200 after 1–13 ms; GET /mixed does the same but
// answers every tenth request 503; with -close, every connection is closed
// as soon as it is accepted (a service that is down); with -hold, every
// connection is kept open and never answered (a service that hangs).
//
//	go run ./bench/importer-fixtures/target -addr 127.0.0.1:18091
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18091", "loopback `host:port` to listen on")
	closeAll := flag.Bool("close", false, "close every connection on accept")
	hold := flag.Bool("hold", false, "keep every connection open and never answer")
	flag.Parse()
	if err := run(*addr, *closeAll, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "target:", err)
		os.Exit(1)
	}
}

func run(addr string, closeAll, hold bool) error {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() { <-stop; _ = ln.Close() }()
	if closeAll || hold {
		var held []net.Conn // kept referenced, so they stay open until exit
		for {
			c, err := ln.Accept()
			if err != nil {
				return nil
			}
			if hold {
				held = append(held, c)
				continue
			}
			_ = c.Close()
		}
	}
	srv := &http.Server{Handler: &handler{}, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type handler struct{ ok, mixed atomic.Int64 }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var n int64
	switch r.URL.Path {
	case "/ok":
		n = h.ok.Add(1)
	case "/mixed":
		n = h.mixed.Add(1)
	default:
		http.NotFound(w, r)
		return
	}
	// 1–13 ms in a fixed order, so that percentiles differ from the mean.
	time.Sleep(time.Duration(1+n*7%13) * time.Millisecond)
	if r.URL.Path == "/mixed" && n%10 == 0 {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}
