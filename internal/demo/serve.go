package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long Serve lets in-flight requests finish.
const shutdownGrace = 5 * time.Second

// Serve runs the service on addr (e.g. "127.0.0.1:8080", or port 0 for any
// free port) until ctx is done. Once listening it writes the base URL and a
// newline to ready, when ready is not nil, so a parent process can read it.
func Serve(ctx context.Context, addr string, opt Options, ready io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("demo service: listen on %s: %w", addr, err)
	}
	if ready != nil {
		if _, err := fmt.Fprintf(ready, "http://%s\n", ln.Addr()); err != nil {
			ln.Close()
			return fmt.Errorf("demo service: announce address: %w", err)
		}
	}
	return ServeListener(ctx, ln, opt)
}

// ServeListener runs the service on ln until ctx is done, then shuts down
// gracefully. It closes ln.
func ServeListener(ctx context.Context, ln net.Listener, opt Options) error {
	svc := New(opt)
	defer svc.Close()
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("demo service: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("demo service: shut down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("demo service: %w", err)
	}
	return nil
}
