package cli_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// itemService is a small real HTTP service for the benchmarks of these
// tests: a reset endpoint, a count the dataset verify reads, and items that
// a 2-step scenario creates and reads back.
type itemService struct {
	*httptest.Server
	// countAfterReset is what /count answers after a reset (3 is right).
	countAfterReset int

	mu      sync.Mutex
	items   map[int]bool
	nextID  int
	resets  atomic.Int64
	created atomic.Int64
	reads   atomic.Int64
}

func newItemService(t *testing.T, countAfterReset int) *itemService {
	t.Helper()
	s := &itemService{countAfterReset: countAfterReset, items: map[int]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /reset", s.reset)
	mux.HandleFunc("GET /count", s.count)
	mux.HandleFunc("POST /items", s.create)
	mux.HandleFunc("GET /items/{id}", s.read)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *itemService) reset(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.items = map[int]bool{}
	s.nextID = 0
	s.mu.Unlock()
	s.resets.Add(1)
	w.WriteHeader(http.StatusNoContent)
}

func (s *itemService) count(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]int{"count": s.countAfterReset})
}

func (s *itemService) create(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.items[id] = true
	s.mu.Unlock()
	s.created.Add(1)
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "state": "new"})
}

func (s *itemService) read(w http.ResponseWriter, r *http.Request) {
	var id int
	if _, err := fmt.Sscan(r.PathValue("id"), &id); err != nil {
		http.Error(w, "bad id", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	ok := s.items[id]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such item", http.StatusNotFound)
		return
	}
	s.reads.Add(1)
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "state": "new"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// benchConfig is a benchmark of the item service at url: an open loop at
// 40 iterations/s, 2 short runs, a 2-step scenario (create, then read back).
func benchConfig(name, url string, window int) string {
	gate := ""
	if window > 0 {
		gate = fmt.Sprintf("gate:\n  window: %d\n", window)
	}
	return strings.NewReplacer("@NAME@", name, "@URL@", url, "@GATE@", gate).Replace(`name: @NAME@
seed: 7
target:
  url: @URL@
  ready:
    path: /health
    timeout: 1s
    interval: 50ms
dataset:
  reset:
    request: {method: POST, path: /reset}
  verify:
    request: {path: /count}
    expect: {count: 3}
load:
  model: open
  rate: 40/s
  warmup: 0s
  duration: 300ms
  runs: 2
  request_timeout: 2s
scenarios:
  - name: items
    steps:
      - name: create
        method: POST
        path: /items
        json: {title: "item {{seq}}"}
        status: 201
        save: {id: id}
      - name: read
        path: /items/{{.id}}
        expect: {state: new}
@GATE@`)
}

// writeBenchConfig writes benchConfig into dir and returns its path.
func writeBenchConfig(t *testing.T, dir, name, url string, window int) string {
	t.Helper()
	path := filepath.Join(dir, name+".yml")
	mustWrite(t, path, benchConfig(name, url, window))
	return path
}

// closedPortURL returns a loopback URL on which nothing listens.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}
