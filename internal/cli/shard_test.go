package cli_test

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// hitServer is a loopback target that counts what it served: load
// requests (with the seq each carried, by run: the seconds since start
// over every) and dataset resets.
type hitServer struct {
	*httptest.Server
	hits, resets atomic.Int64
	mu           sync.Mutex
	start        time.Time
	every        time.Duration
	seqs         map[string]int
}

func newHitServer(t *testing.T) *hitServer {
	t.Helper()
	s := &hitServer{seqs: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, _ *http.Request) { s.resets.Add(1); w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /hit", func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		run := 0
		if s.every > 0 {
			run = int(time.Since(s.start) / s.every)
		}
		s.seqs[fmt.Sprintf("run %d, seq %s", run+1, r.URL.Query().Get("seq"))]++
		s.mu.Unlock()
		_, _ = w.Write([]byte("ok"))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func shardConfig(t *testing.T, dir, url, load string) string {
	t.Helper()
	path := filepath.Join(dir, "sharded.yml")
	mustWrite(t, path, `name: sharded
target:
  url: `+url+`
  ready: {path: /health, timeout: 20s}
dataset:
  reset:
    request: {method: POST, path: /reset}
load: {`+load+`}
scenarios:
  - steps: [{name: hit, path: "/hit?seq={{seq}}"}]
`)
	return path
}

// Two tailgate processes, shard 1/2 and 2/2 of one load started for one
// time, against one loopback target: their merge counts what the target
// served, offers the rate of both, and check judges it.
func TestTwoShardProcessesMergeToWhatTheTargetServed(t *testing.T) {
	svc := newHitServer(t)
	dir := t.TempDir()
	cfg := shardConfig(t, dir, svc.URL, "model: open, rate: 100/s, max_inflight: 8, warmup: 0s, duration: 1s, runs: 2")
	start := time.Now().Add(2500 * time.Millisecond).Truncate(time.Millisecond)
	svc.mu.Lock()
	svc.start, svc.every = start, 2*time.Second
	svc.mu.Unlock()
	// the same instant, written both ways the flag takes
	startAts := []string{start.UTC().Format(time.RFC3339Nano), fmt.Sprintf("%d.%03d", start.Unix(), start.Nanosecond()/1e6)}
	outs := make([]string, 2)
	for i := range outs {
		outs[i] = filepath.Join(dir, "shard-"+strconv.Itoa(i+1)+".json")
	}
	type proc struct {
		wait           func() error
		stdout, stderr fmt.Stringer
	}
	procs := make([]proc, 2)
	for i := range procs {
		cmd, stdout, stderr := tailgateProcess(t, nil, "run", "-q", "-c", cfg, "-o", outs[i],
			"--shard", strconv.Itoa(i+1)+"/2", "--start-at", startAts[i], "--run-every", "2s")
		procs[i] = proc{cmd.Wait, stdout, stderr}
	}
	for i, p := range procs {
		if err := p.wait(); err != nil {
			t.Fatalf("shard %d/2: %v\n%s\n%s", i+1, err, p.stdout, p.stderr)
		}
	}
	shards := make([]*result.File, 2)
	for i, path := range outs {
		f, err := result.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Shard == nil || f.Shard.Index != i+1 || f.Shard.Count != 2 || !f.Shard.StartAt.Equal(start) {
			t.Fatalf("%s: shard %+v, want %d/2 started for %v", path, f.Shard, i+1, start)
		}
		shards[i] = f
	}

	merged := filepath.Join(dir, "merged.json")
	o := tailgate(t, "merge", outs[1], outs[0], "-o", merged)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "2 shards merged into 2 runs, written to "+merged)
	m, err := result.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	var served int64
	for k, r := range m.Runs {
		served += r.Requests.Total
		s1, s2 := shards[0].Runs[k], shards[1].Runs[k]
		if r.Requests.Total != s1.Requests.Total+s2.Requests.Total || r.Requests.Failed != 0 {
			t.Errorf("run %d: merged requests %+v, shards %+v and %+v", k+1, r.Requests, s1.Requests, s2.Requests)
		}
		// Each shard offers its half over its own window; the merge offers
		// both halves over the union of the windows, which is longer by
		// as much as the shards' starts and ends lag on a loaded machine.
		sum := s1.OfferedRate + s2.OfferedRate
		exact := float64(s1.Iterations.Offered+s2.Iterations.Offered) / r.Window
		if math.Abs(sum-100) > 5 || math.Abs(r.OfferedRate-exact) > 1e-9*exact ||
			r.OfferedRate > 1.01*sum || r.OfferedRate < 0.99*sum*r.Overlap/r.Window {
			t.Errorf("run %d: merged offered rate %.2f/s over %.3f s (overlap %.3f s); the shards offered %.2f + %.2f, the config 100/s",
				k+1, r.OfferedRate, r.Window, r.Overlap, s1.OfferedRate, s2.OfferedRate)
		}
		if r.Overlap < 0.9*r.Window {
			t.Errorf("run %d: the shards measured together %.3f s of %.3f s: --start-at did not line them up", k+1, r.Overlap, r.Window)
		}
		if r.Latency.Count() != r.Requests.Total {
			t.Errorf("run %d: %d latencies for %d requests", k+1, r.Latency.Count(), r.Requests.Total)
		}
	}
	if got := svc.hits.Load(); served != got {
		t.Errorf("the merged runs count %d requests, the target served %d", served, got)
	}
	svc.mu.Lock()
	for seq, n := range svc.seqs {
		if n > 1 {
			t.Errorf("%s was sent %d times: the shards' iterations collide", seq, n)
		}
	}
	svc.mu.Unlock()
	if got := svc.resets.Load(); got != 2 {
		t.Errorf("the dataset was reset %d times, want once per run by shard 1 (2)", got)
	}

	o = tailgate(t, "check", "--result", merged, "--baseline", filepath.Join(dir, "none.json"))
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "tailgate: sharded", "2 head runs")
}

func TestShardFlagsRefuseBadValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := shardConfig(t, dir, closedPortURL(t), "model: closed, vus: 2, warmup: 0s, duration: 1s, runs: 2")
	out := filepath.Join(dir, "r.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/2"}, "want I/N with 1 ≤ I ≤ N"},
		{[]string{"--shard", "two"}, "want I/N, such as 2/4"},
		{[]string{"--shard0", "2/2"}, "want K/N with 0 ≤ K < N"},
		{[]string{"--shard", "1/2", "--shard0", "0/2"}, "give --shard or --shard0, not both"},
		{[]string{"--shard", "1/3"}, "vus is 2: it cannot be split into 3 shards"},
		{[]string{"--start-at", "tomorrow"}, "want an RFC 3339 time"},
		{[]string{"--start-at", "1795986000.1234567891"}, "want an RFC 3339 time"},
		{[]string{"--shard", "1/2", "--start-at", "2026-11-29T21:00:00Z"}, "--start-at with 2 runs needs --run-every"},
		{[]string{"--run-every", "5s"}, "--run-every needs --start-at"},
	}
	for _, c := range cases {
		o := tailgate(t, append([]string{"run", "-q", "-c", cfg, "-o", out}, c.args...)...)
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, c.want)
		wantNoFile(t, out)
	}
}

// Kubernetes' JOB_COMPLETION_INDEX counts from 0: --shard0 takes it as is.
func TestShard0CountsFromZero(t *testing.T) {
	svc := newHitServer(t)
	dir := t.TempDir()
	cfg := shardConfig(t, dir, svc.URL, "model: closed, vus: 3, think: 50ms, warmup: 0s, duration: 300ms, runs: 1")
	out := filepath.Join(dir, "r.json")
	o := tailgate(t, "run", "-q", "-c", cfg, "-o", out, "--shard0", "2/3")
	wantCode(t, o, 0)
	f, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Shard == nil || f.Shard.Index != 3 || f.Shard.Count != 3 {
		t.Errorf("--shard0 2/3 wrote shard %+v, want 3/3", f.Shard)
	}
	if svc.resets.Load() != 0 {
		t.Errorf("shard 3/3 reset the dataset")
	}
}

func TestLateShardIsARuntimeFailure(t *testing.T) {
	svc := newHitServer(t)
	dir := t.TempDir()
	cfg := shardConfig(t, dir, svc.URL, "model: open, rate: 10/s, warmup: 0s, duration: 1s, runs: 1")
	out := filepath.Join(dir, "r.json")
	o := tailgate(t, "run", "-q", "-c", cfg, "-o", out, "--shard", "1/2", "--start-at", strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10))
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, "after its start time", "the shards would not measure together")
	wantNoFile(t, out)
	if svc.hits.Load() != 0 {
		t.Errorf("a late shard sent %d requests", svc.hits.Load())
	}
}

// shardFile writes a small shard result, as run --shard writes it.
func shardFile(t *testing.T, dir string, index, count int, hash string) string {
	t.Helper()
	h := hist.New()
	for i := range 50 {
		h.Record(time.Duration(1+i) * time.Millisecond)
	}
	start := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	run := result.Run{Started: start, Window: 1, Model: "closed", Latency: h, Requests: result.Requests{Total: 50, Counted: result.CountRequests},
		Iterations: result.Iterations{Started: 50, Completed: 50, Succeeded: 50, Counted: result.CountAll}}
	run.Summarize()
	f := &result.File{Benchmark: "sharded", DefinitionHash: hash, Source: "tailgate", Created: start,
		Shard: &result.Shard{Index: index, Count: count, StartAt: start}, Runs: []result.Run{run}}
	path := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d-%s.json", index, count, hash[len(hash)-1:]))
	if err := result.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMergeRefusesWhatIsNotOneShardedRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := shardFile(t, dir, 1, 3, "sha256:a"), shardFile(t, dir, 2, 3, "sha256:a"), shardFile(t, dir, 3, 3, "sha256:a")
	other := shardFile(t, dir, 3, 3, "sha256:b")
	four := shardFile(t, dir, 3, 4, "sha256:a")
	whole := filepath.Join(dir, "whole.json")
	mustWrite(t, whole, `{"schema": 1, "benchmark": "sharded", "source": "tailgate", "created": "2026-11-29T21:00:00Z", "env": {}, "runs": []}`)
	out := filepath.Join(dir, "merged.json")
	cases := []struct {
		files []string
		want  string
	}{
		{[]string{a, b}, "shard 3/3 missing"},
		{[]string{a, b, b}, "are both shard 2/3"},
		{[]string{a, b, other}, "measured different benchmark definitions"},
		{[]string{a, b, four}, "is shard 1/3 but " + four + " is 3/4"},
		{[]string{a, b, whole}, whole + " is not a shard result"},
		{[]string{a, b, filepath.Join(dir, "absent.json")}, "absent.json"},
		{nil, "merge needs the result files of every shard"},
	}
	for _, cs := range cases {
		o := tailgate(t, append([]string{"merge", "-o", out}, cs.files...)...)
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, cs.want)
		wantNoFile(t, out)
	}
	o := tailgate(t, "merge", c, a, b, "-o", out)
	wantCode(t, o, 0)
	m, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Merged == nil || m.Merged.Shards != 3 || m.Runs[0].Requests.Total != 150 || m.Runs[0].Latency.Count() != 150 {
		t.Errorf("merged %+v, run %+v", m.Merged, m.Runs[0].Requests)
	}
}
