// Command nethttp is the floor of any load generator built on Go's
// net/http client: N goroutines that loop Do, drain and close the body,
// and nothing else (no timeouts, no checks, no histograms). bench/peers
// runs it beside tailgate (-t "... nethttp") to split tailgate's CPU per
// request into what net/http costs and what tailgate adds.
//
//	go run ./bench/peers/nethttp -url http://127.0.0.1:18088/ -c 64 -d 10s
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	target := flag.String("url", "http://127.0.0.1:18088/", "loopback `URL` to GET")
	conns := flag.Int("c", 64, "concurrent `connections`, one goroutine each")
	d := flag.Duration("d", 10*time.Second, "how long to send")
	flag.Parse()
	if err := run(*target, *conns, *d); err != nil {
		fmt.Fprintln(os.Stderr, "nethttp:", err)
		os.Exit(1)
	}
}

func run(target string, conns int, d time.Duration) error {
	if err := checkLoopback(target); err != nil {
		return err
	}
	if conns < 1 || d <= 0 {
		return errors.New("-c and -d must be positive")
	}
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	client := &http.Client{Transport: tr}
	var ok, failed atomic.Int64
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for time.Now().Before(end) {
				if get(client, target) {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	fmt.Printf("requests %d\nfailed %d\nreq/s %.1f\n", ok.Load(), failed.Load(), float64(ok.Load())/took)
	return nil
}

// get sends one request and reports whether it got a 200.
func get(client *http.Client, target string) bool {
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func checkLoopback(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("-url %q: %w", target, err)
	}
	if h := u.Hostname(); h != "localhost" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("-url %q: host must be loopback (127.0.0.0/8, ::1 or localhost)", target)
		}
	}
	return nil
}
