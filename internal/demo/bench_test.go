package demo

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// reportCPU adds the process CPU time per op (user+system, all threads) to
// a benchmark: on a shared machine it is steadier than wall time.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRequestWork is the fixed CPU work of one request, without HTTP.
func BenchmarkRequestWork(b *testing.B) {
	for _, s := range []float64{0, 0.3} {
		b.Run(map[float64]string{0: "base", 0.3: "slowdown30"}[s], func(b *testing.B) {
			rounds := roundsPerRequest(Options{Slowdown: s})
			defer reportCPU(b)()
			for b.Loop() {
				burn(rounds)
			}
		})
	}
}

// BenchmarkLifecycle is one CREATE → ASSIGN → RESOLVE → SEARCH through the
// handler (no network), from the fixed dataset: handler CPU per iteration.
func BenchmarkLifecycle(b *testing.B) {
	svc := New(Options{})
	post := func(path, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		svc.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, bytes.NewBufferString(body)))
		return w
	}
	n := 0
	defer reportCPU(b)()
	for b.Loop() {
		if n%100 == 0 { // keep the dataset small, as a reset per run does
			post("/reset", "")
		}
		n++
		w := post("/complaints", `{"title":"bench","body":"b"}`)
		id := w.Body.String()[7:15] // {"id":"CMP-0004",...
		post("/complaints/"+id+"/assign", `{"assignee":"a"}`)
		if w := post("/complaints/"+id+"/resolve", ""); w.Code != 200 {
			b.Fatalf("resolve %s = %d %s", id, w.Code, w.Body)
		}
		w = httptest.NewRecorder()
		svc.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/complaints/search?q="+id, nil))
	}
}

// BenchmarkSearch is one search request at several stored counts: the cost
// the fixed dataset keeps constant.
func BenchmarkSearch(b *testing.B) {
	for _, stored := range []int{3, 1000, 17337} {
		b.Run(fmt.Sprintf("stored=%d", stored), func(b *testing.B) {
			svc := New(Options{})
			for i := len(fixedDataset); i < stored; i++ {
				svc.store.create(fmt.Sprint("complaint ", i), "body text of a stored complaint")
			}
			defer reportCPU(b)()
			for b.Loop() {
				w := httptest.NewRecorder()
				svc.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/complaints/search?q=CMP-0002", nil))
			}
		})
	}
}
