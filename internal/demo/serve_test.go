package demo

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServeAnnouncesURLAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "127.0.0.1:0", Options{}, pw) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the announced URL: %v", err)
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("announced %q, want http://127.0.0.1:PORT", url)
	}
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatalf("GET /health: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /health = %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve returned %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

func TestServeBadAddress(t *testing.T) {
	t.Parallel()
	err := Serve(context.Background(), "127.0.0.1:notaport", Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "listen on 127.0.0.1:notaport") {
		t.Fatalf("Serve on a bad address = %v, want a listen error naming it", err)
	}
}
