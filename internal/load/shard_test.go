package load

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The shares of a split add up to the load: every worker once, in
// consecutive numbers, no shard without one and none with two more than
// another.
func TestSplitSharesAddUp(t *testing.T) {
	t.Parallel()
	for _, model := range []string{Closed, Open} {
		for n := 1; n <= 7; n++ {
			for total := n; total <= 23; total++ {
				o := Options{Model: model, VUs: total, MaxInflight: total, Pacer: Constant{PerSecond: 90}}
				sum, next, least, most := 0, 0, total, 0
				for i := 1; i <= n; i++ {
					s, err := Shard{Index: i, Count: n}.Split(o)
					if err != nil {
						t.Fatalf("%s %d/%d of %d: %v", model, i, n, total, err)
					}
					share := s.VUs
					if model == Open {
						share = s.MaxInflight
						if s.VUs != total {
							t.Errorf("open %d/%d: vus changed to %d", i, n, s.VUs)
						}
					}
					if s.FirstVU != next {
						t.Errorf("%s %d/%d of %d: first vu %d, want %d (after the shards before)", model, i, n, total, s.FirstVU, next)
					}
					if n > 1 && s.Part != (Shard{i, n}) {
						t.Errorf("%s %d/%d: Part = %v", model, i, n, s.Part)
					}
					sum, next = sum+share, next+share
					least, most = min(least, share), max(most, share)
				}
				if sum != total || least < 1 || most-least > 1 {
					t.Errorf("%s: %d workers in %d shards: sum %d, smallest %d, largest %d", model, total, n, sum, least, most)
				}
			}
		}
	}
}

func TestSplitRefusesShardsWithoutWorkers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		shard Shard
		o     Options
		want  string
	}{
		{Shard{1, 4}, Options{Model: Closed, VUs: 3}, "vus is 3: it cannot be split into 4 shards"},
		{Shard{2, 3}, Options{Model: Open, MaxInflight: 2, Pacer: Constant{10}}, "max_inflight is 2: it cannot be split into 3 shards"},
		{Shard{3, 2}, Options{Model: Closed, VUs: 8}, "1 ≤ I ≤ N"},
		{Shard{0, 2}, Options{Model: Closed, VUs: 8}, "1 ≤ I ≤ N"},
	}
	for _, c := range cases {
		if _, err := c.shard.Split(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v of %+v: error %v, want %q", c.shard, c.o, err, c.want)
		}
	}
	whole := Options{Model: Closed, VUs: 1}
	for _, s := range []Shard{{}, {1, 1}} {
		if got, err := s.Split(whole); err != nil || got.VUs != 1 || got.FirstVU != 0 {
			t.Errorf("%v is the whole load: got %+v, %v", s, got, err)
		}
	}
}

// hitLog records what every request of a run asked for.
type hitLog struct {
	mu  sync.Mutex
	all []hitRecord
}

type hitRecord struct{ seq, vu, rand string }

func (h *hitLog) handler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	h.mu.Lock()
	h.all = append(h.all, hitRecord{q.Get("seq"), q.Get("vu"), q.Get("r")})
	h.mu.Unlock()
	_, _ = w.Write([]byte("ok"))
}

// runShards runs every shard of o at once against one server and returns
// their runs and what the server saw of each.
func runShards(t *testing.T, o Options, n int) ([]*result.Run, [][]hitRecord) {
	t.Helper()
	logs := make([]*hitLog, n)
	urls := make([]string, n)
	for i := range logs {
		logs[i] = &hitLog{}
		urls[i] = server(t, logs[i].handler).URL
	}
	plan := compile(t, 7, oneStep("hit", "/hit?seq={{seq}}&vu={{vu}}&r={{randString 12}}"))
	runs := make([]*result.Run, n)
	var wg sync.WaitGroup
	for i := range n {
		opt, err := Shard{Index: i + 1, Count: n}.Split(o)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { runs[i] = run(t, plan, urls[i], opt) })
	}
	wg.Wait()
	seen := make([][]hitRecord, n)
	for i, l := range logs {
		seen[i] = l.all
	}
	return runs, seen
}

// The open model's shards offer the whole schedule between them, each
// hit once: the offered counts and rates add up to the load's, and no two
// shards render the same iteration (seq and random values differ).
func TestOpenShardsOfferTheWholeScheduleOnce(t *testing.T) {
	t.Parallel()
	pacers := map[string]Pacer{
		"constant": Constant{PerSecond: 300},
		"ramp":     LinearRamp{From: 100, To: 500, Over: 600 * time.Millisecond},
	}
	for name, p := range pacers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := Options{Model: Open, Pacer: p, MaxInflight: 30, Duration: time.Second, RequestTimeout: 2 * time.Second}
			whole := offeredBy(p, o.Duration)
			runs, seen := runShards(t, o, 3)
			var offered, started int64
			var rate float64
			seqs := map[string]int{}
			for i, r := range runs {
				offered += r.Iterations.Offered
				started += r.Iterations.Started
				rate += r.OfferedRate
				// Offered counts the schedule, dropped iterations included:
				// on a busy machine a few may be.
				if r.Iterations.Started+r.Iterations.Dropped != r.Iterations.Offered || r.Requests.Total != int64(len(seen[i])) {
					t.Errorf("shard %d: %+v, %d requests; the server saw %d", i+1, r.Iterations, r.Requests.Total, len(seen[i]))
				}
				for _, h := range seen[i] {
					seqs[h.seq]++
				}
			}
			if offered != whole {
				t.Errorf("the shards offered %d iterations, the whole schedule has %d", offered, whole)
			}
			if want := float64(whole) / o.Duration.Seconds(); rate != want {
				t.Errorf("offered rates sum to %v, want %v", rate, want)
			}
			if int64(len(seqs)) != started {
				t.Errorf("%d distinct seq values in %d started iterations", len(seqs), started)
			}
			for s, c := range seqs {
				if c > 1 {
					t.Errorf("seq %s rendered %d times", s, c)
				}
			}
			distinctAcrossShards(t, seen, func(h hitRecord) string { return h.rand })
			distinctAcrossShards(t, seen, func(h hitRecord) string { return h.vu })
		})
	}
}

// offeredBy counts the hits p makes due in d.
func offeredBy(p Pacer, d time.Duration) int64 {
	var n int64
	for {
		at, stop := p.Pace(0, uint64(n))
		if stop || at >= d {
			return n
		}
		n++
	}
}

// The closed model's shards share the VUs out, numbered on from one shard
// to the next, and number their iterations apart.
func TestClosedShardsSplitTheVUs(t *testing.T) {
	t.Parallel()
	o := Options{Model: Closed, VUs: 5, Think: 20 * time.Millisecond, Duration: 400 * time.Millisecond, RequestTimeout: 2 * time.Second}
	runs, seen := runShards(t, o, 2)
	wantVUs := []map[string]bool{{"0": true, "1": true, "2": true}, {"3": true, "4": true}}
	for i := range runs {
		vus := map[string]bool{}
		for _, h := range seen[i] {
			vus[h.vu] = true
		}
		if len(vus) != len(wantVUs[i]) {
			t.Errorf("shard %d used vus %v, want %v", i+1, vus, wantVUs[i])
		}
		for vu := range vus {
			if !wantVUs[i][vu] {
				t.Errorf("shard %d used vu %s, want %v", i+1, vu, wantVUs[i])
			}
		}
		if runs[i].Iterations.Completed == 0 {
			t.Errorf("shard %d completed no iteration", i+1)
		}
	}
	distinctAcrossShards(t, seen, func(h hitRecord) string { return h.seq })
	distinctAcrossShards(t, seen, func(h hitRecord) string { return h.rand })
}

// distinctAcrossShards fails when two shards produced the same value.
func distinctAcrossShards(t *testing.T, seen [][]hitRecord, value func(hitRecord) string) {
	t.Helper()
	owner := map[string]int{}
	for i, hs := range seen {
		for _, h := range hs {
			v := value(h)
			if j, ok := owner[v]; ok && j != i {
				t.Errorf("shards %d and %d both produced %q", j+1, i+1, v)
				return
			}
			owner[v] = i
		}
	}
}

// FromConfig and Split together: the split of a config's load phase.
func TestSplitOfAConfiguredLoad(t *testing.T) {
	t.Parallel()
	l := config.Load{Model: config.ModelOpen, Rate: config.Rate{PerSecond: 100}, Duration: config.Duration(time.Second)}
	o, err := Shard{Index: 2, Count: 2}.Split(FromConfig(l))
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxInflight != DefaultMaxInflight/2 || o.FirstVU != DefaultMaxInflight/2 || o.Part != (Shard{2, 2}) {
		t.Errorf("shard 2/2 of the default max_inflight: %d from vu %d, part %v", o.MaxInflight, o.FirstVU, o.Part)
	}
}
