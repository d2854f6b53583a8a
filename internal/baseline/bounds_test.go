package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/bounded"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// sparse makes a file of size bytes of nothing (a hole), as large as a
// runaway file without using the disk.
func sparse(t *testing.T, name string, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every stored file past its bound is bad input naming the file and the
// bound, found from its size before it is read.
func TestStoredFilesPastTheirBound(t *testing.T) {
	// Not parallel: runtime.MemStats counts every goroutine's allocations.
	for _, tc := range []struct {
		name, bound string
		read        func(string) error
	}{
		{"api.history.jsonl", "16 MiB", func(p string) error { _, err := ReadHistory(p); return err }},
		{"api.json", "16 MiB", func(p string) error { _, err := Read(p); return err }},
		{"noise.json", "16 MiB", func(p string) error { _, err := ReadNoise(p); return err }},
	} {
		path := sparse(t, tc.name, 100<<20)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := tc.read(path)
		runtime.ReadMemStats(&after)
		if !bounded.IsTooLarge(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "100 MiB, larger than the "+tc.bound) {
			t.Errorf("%s of 100 MiB: %v, want a too-large error naming it and the %s bound", tc.name, err, tc.bound)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: refusing it allocated %d KiB: it was read", tc.name, alloc>>10)
		}
	}
}

// noiseOf is a noise file of entries benchmarks, each with NoiseJobs jobs
// of metrics metrics, the last job of entry i at day i.
func noiseOf(entries, metrics int) *Noise {
	n := &Noise{Schema: NoiseSchema}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range entries {
		k := NoiseKey{Benchmark: fmt.Sprintf("bench-%03d", i), DefinitionHash: "d", Fingerprint: "f", Design: "interleaved"}
		for j := range NoiseJobs {
			m := map[string]stats.SeqPrior{}
			for c := range metrics {
				m[fmt.Sprintf("counter.pg.calls_%d", c)] = stats.SeqPrior{SD: 0.0123456789, DF: 63}
			}
			n.Add(k, NoiseJob{Time: t0.Add(time.Duration(i)*24*time.Hour + time.Duration(j-NoiseJobs)*time.Minute), Commit: strings.Repeat("c", 40), Metrics: m})
		}
	}
	return n
}

// The file: many benchmarks' entries, written indented by an
// earlier tailgate (11.8 MB read became 25.5 MB written, past the read
// bound). One job later the file holds at most MaxNoiseEntries entries,
// the newest (this job's among them), compact, well under the bound, and
// reads back.
func TestNoiseFilePrunesAndStaysCompact(t *testing.T) {
	// Not parallel: runtime.MemStats counts every goroutine's allocations.
	old := noiseOf(300, 40)
	data, err := json.MarshalIndent(old, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "noise.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := ReadNoise(path)
	runtime.GC() // what is left is what the entries keep
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("reading the %.1f MB indented file: %v", float64(len(data))/1e6, err)
	}
	live := after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	t.Logf("read %.1f MB (%d entries): %d MiB allocated in all, %d MiB live after", float64(len(data))/1e6, len(n.Entries), (after.TotalAlloc-before.TotalAlloc)>>20, live>>20)
	if live > 4*MaxNoiseBytes {
		t.Errorf("the entries read take %d MiB, more than 4× the %d MiB bound", live>>20, MaxNoiseBytes>>20)
	}

	mine := NoiseKey{Benchmark: "api", DefinitionHash: "d", Fingerprint: "f", Design: "interleaved"}
	n.Add(mine, NoiseJob{Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), Metrics: map[string]stats.SeqPrior{"latency_p95_ms": {SD: 0.05, DF: 9}}})
	if err := WriteNoise(path, n); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(written, []byte("\n ")) || bytes.Count(written, []byte("\n")) != 1 {
		t.Errorf("the file is not compact: %.200q", written)
	}
	if len(written) > maxNoiseWrite {
		t.Errorf("written %d bytes, more than %d", len(written), maxNoiseWrite)
	}
	back, err := ReadNoise(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Entries) != MaxNoiseEntries || back.Jobs(mine) != 1 {
		t.Fatalf("%d entries, this job's %d jobs; want %d entries with this job's", len(back.Entries), back.Jobs(mine), MaxNoiseEntries)
	}
	// The entries kept are the newest: bench-299 down to bench-237.
	for _, e := range back.Entries {
		var i int
		if _, err := fmt.Sscanf(e.Benchmark, "bench-%d", &i); err == nil && i < 300-(MaxNoiseEntries-1) {
			t.Errorf("kept %s, older than the %d newest", e.Benchmark, MaxNoiseEntries-1)
		}
	}
	t.Logf("written back: %.2f MB (was %.1f MB indented)", float64(len(written))/1e6, float64(len(data))/1e6)
}

// Entries of many metrics (a benchmark with hundreds of counters) are
// pruned to the byte bound too, oldest first.
func TestNoiseFilePrunesToItsByteBound(t *testing.T) {
	t.Parallel()
	n := noiseOf(MaxNoiseEntries, 150)
	path := filepath.Join(t.TempDir(), "noise.json")
	if err := WriteNoise(path, n); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadNoise(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > maxNoiseWrite || len(back.Entries) >= MaxNoiseEntries || back.Jobs(NoiseKey{Benchmark: fmt.Sprintf("bench-%03d", MaxNoiseEntries-1), DefinitionHash: "d", Fingerprint: "f", Design: "interleaved"}) != NoiseJobs {
		t.Errorf("%d bytes, %d entries: want at most %d bytes, fewer entries, the newest kept", st.Size(), len(back.Entries), maxNoiseWrite)
	}
}

// The history reader on its worst input, a history just under its bound
// (16 MiB of jobs of 5 runs of 19 metrics, eight times the jobs tailgate
// keeps): it reads, and what it allocates in all (an upper bound of its
// peak, garbage included) is logged, and what it keeps (the jobs) stays
// within a small multiple of the bound.
func TestHistoryReaderMemoryAtItsBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 16 MiB")
	}
	// Not parallel: runtime.MemStats counts every goroutine's allocations.
	var b bytes.Buffer
	keys := []string{"iterations_per_s", "requests_per_s", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "request_error_pct",
		"lifecycle_success_pct", "cpu_ms_per_iteration", "peak_rss_mb"}
	for i := range 10 {
		keys = append(keys, fmt.Sprintf("counter.pg.calls_%d", i))
	}
	for n := 0; ; n++ {
		j := Job{Schema: HistorySchemaVersion, Benchmark: "api", Commit: fmt.Sprintf("%040x", n), Job: fmt.Sprint(n),
			Time: time.Date(2026, 11, 1, 0, 0, n, 0, time.UTC)}
		for r := range 5 {
			m := map[string]float64{}
			for k, key := range keys {
				m[key] = float64(n*r+k) + 0.123456789
			}
			j.Runs = append(j.Runs, m)
		}
		line, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		if b.Len()+len(line)+1 > MaxHistoryReadBytes {
			break
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "api.history.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, err := ReadHistory(path)
	runtime.GC() // what is left is what the jobs keep
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	alloc, live := after.TotalAlloc-before.TotalAlloc, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)
	t.Logf("%.1f MiB history, %d jobs: %d MiB allocated in all, %d MiB live after", float64(b.Len())/(1<<20), len(h.Jobs), alloc>>20, live>>20)
	if live > 4*MaxHistoryReadBytes {
		t.Errorf("the jobs read take %d MiB, more than 4× the %d MiB bound", live>>20, MaxHistoryReadBytes>>20)
	}
	runtime.KeepAlive(h)
}
