package result

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
)

// samples is every value one kind of histogram recorded, over all shards.
type samples map[string][]time.Duration

func (s samples) record(kind string, h *hist.Histogram, d time.Duration) {
	h.Record(d)
	s[kind] = append(s[kind], d)
}

var mergeStart = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

// shardFiles makes the result files of n shards of one open-model run,
// each with its own latency distribution, and every sample they recorded.
func shardFiles(n int, seed uint64) ([]*File, samples) {
	rng := rand.New(rand.NewPCG(seed, 0x5a4d))
	all := samples{}
	lognormal := func(medianMs, sigma float64) time.Duration {
		return time.Duration(medianMs * math.Exp(sigma*rng.NormFloat64()) * float64(time.Millisecond))
	}
	files := make([]*File, n)
	for i := range n {
		run := Run{Started: mergeStart.Add(time.Duration(i) * 10 * time.Millisecond), Window: 10, Model: "open",
			Latency: hist.New(), IterationLatency: hist.New(), ScheduleLag: hist.New()}
		steps := []Step{{Name: "create", Latency: hist.New()}, {Name: "read", Latency: hist.New()}}
		iterations := 400 + 150*i
		median := 2 + 3*float64(i) // the shards see different latencies
		for range iterations {
			var total time.Duration
			for s := range steps {
				d := lognormal(median*float64(s+1), 0.6)
				all.record("step "+steps[s].Name, steps[s].Latency, d)
				all.record("latency", run.Latency, d)
				steps[s].Requests++
				total += d
			}
			all.record("iteration", run.IterationLatency, total)
			all.record("lag", run.ScheduleLag, time.Duration(rng.IntN(900)+5)*time.Microsecond)
		}
		run.Iterations = Iterations{Offered: int64(iterations + i), Started: int64(iterations), Completed: int64(iterations),
			Succeeded: int64(iterations - i), Dropped: int64(i), Counted: CountAll}
		run.OfferedRate = float64(run.Iterations.Offered) / run.Window
		steps[1].Failed = int64(i)
		run.Steps = steps
		run.Requests = Requests{Total: 2 * int64(iterations), Failed: int64(i), Counted: CountRequests}
		if i > 0 {
			run.Errors = []ErrorClass{{Class: ErrStatus, Step: "read", Count: int64(i), Sample: "409 from shard " + string(rune('0'+i+1))}}
		}
		if i < 2 {
			run.Resources = &Resources{CPUSeconds: 1 + 0.2*float64(i), PeakRSSBytes: int64(10+2*i) << 20}
		}
		run.Notes = []string{"CPU and memory of the same target", "shard " + string(rune('0'+i+1)) + " alone"}
		run.Summarize()
		files[i] = &File{Schema: SchemaVersion, Benchmark: "shop", DefinitionHash: "sha256:def", Source: "tailgate",
			Created: mergeStart, Env: Env{CPUModel: "CPU", Cores: 2, OS: "linux", Arch: "amd64"},
			Shard: &Shard{Index: i + 1, Count: n, StartAt: mergeStart}, Runs: []Run{run}}
	}
	return files, all
}

func union(ds []time.Duration) *hist.Histogram {
	h := hist.New()
	for _, d := range ds {
		h.Record(d)
	}
	return h
}

// Merging 4 shards gives the counts of all of them and the percentiles
// of one histogram of every sample: exactly those of the union's
// histogram, and within histogram precision of the samples' own.
func TestMergeOfFourShardsIsTheUnion(t *testing.T) {
	t.Parallel()
	files, all := shardFiles(4, 1)
	// Given out of order: merge orders them by shard.
	merged, err := MergeShards([]*File{files[2], files[0], files[3], files[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Merged == nil || merged.Merged.Shards != 4 || merged.Shard != nil || merged.DefinitionHash != "sha256:def" || len(merged.Runs) != 1 {
		t.Fatalf("merged file: %+v", merged)
	}
	r := merged.Runs[0]
	var want Iterations
	var reqs Requests
	for _, f := range files {
		it := f.Runs[0].Iterations
		want.Offered += it.Offered
		want.Started += it.Started
		want.Completed += it.Completed
		want.Succeeded += it.Succeeded
		want.Dropped += it.Dropped
		reqs.Total += f.Runs[0].Requests.Total
		reqs.Failed += f.Runs[0].Requests.Failed
	}
	want.Counted, reqs.Counted = CountAll, CountRequests
	if r.Iterations != want || r.Requests != reqs {
		t.Errorf("counts %+v %+v, want %+v %+v", r.Iterations, r.Requests, want, reqs)
	}
	hists := map[string]*hist.Histogram{"latency": r.Latency, "iteration": r.IterationLatency, "lag": r.ScheduleLag,
		"step create": r.Steps[0].Latency, "step read": r.Steps[1].Latency}
	qs := []float64{0.5, 0.9, 0.95, 0.99, 0.999, 1}
	for kind, h := range hists {
		u := union(all[kind])
		if h == nil {
			t.Fatalf("%s: no merged histogram", kind)
		}
		if h.Count() != int64(len(all[kind])) {
			t.Fatalf("%s: the merged histogram holds %d of %d samples", kind, h.Count(), len(all[kind]))
		}
		if got, want := h.Quantiles(qs...), u.Quantiles(qs...); !slices.Equal(got, want) {
			t.Errorf("%s: merged quantiles %v, one histogram of all samples %v", kind, got, want)
		}
		sorted := slices.Sorted(slices.Values(all[kind]))
		for _, q := range qs {
			exact := sorted[hist.Rank(q, int64(len(sorted)))-1]
			got := h.Quantile(q)
			// the top of the bucket: at most 0.1 % (3 significant digits) above, at µs resolution
			if got < exact.Truncate(time.Microsecond) || float64(got) > float64(exact)*1.001+float64(time.Microsecond) {
				t.Errorf("%s p%v: merged %v, the samples' nearest rank %v", kind, 100*q, got, exact)
			}
		}
	}
	if got, want := r.Metrics[LatencyP95], ms(union(all["latency"]).Quantile(0.95)); got != want {
		t.Errorf("merged p95 %v ms, the union's %v ms", got, want)
	}
	// The window spans the first start to the last end: 10 s + 30 ms.
	if !r.Started.Equal(mergeStart) || math.Abs(r.Window-10.03) > 1e-9 || math.Abs(r.Overlap-9.97) > 1e-9 {
		t.Errorf("window from %v, %v s, overlap %v s; want %v, 10.03 s, 9.97 s", r.Started, r.Window, r.Overlap, mergeStart)
	}
	if got, want := r.Metrics[RequestsPerSec], float64(reqs.Total)/r.Window; got != want {
		t.Errorf("requests/s %v, want %v (recomputed over the window)", got, want)
	}
	if got, want := r.OfferedRate, float64(want.Offered)/r.Window; got != want {
		t.Errorf("offered rate %v, want %v", got, want)
	}
	if got, want := r.Metrics[DroppedPct], pct(want.Dropped, want.Started+want.Dropped); got != want {
		t.Errorf("dropped %v %%, want %v", got, want)
	}
	wantErr := []ErrorClass{{Class: ErrStatus, Step: "read", Count: 1 + 2 + 3, Sample: "409 from shard 2"}}
	if !slices.Equal(r.Errors, wantErr) {
		t.Errorf("errors %+v, want %+v", r.Errors, wantErr)
	}
	if r.Steps[1].Failed != 6 || r.Steps[0].Requests != r.Steps[1].Requests || r.Steps[0].Requests*2 != reqs.Total {
		t.Errorf("steps %+v", r.Steps)
	}
	// Two shards sampled the one target: its figures are not counted twice.
	if r.Resources == nil || r.Resources.CPUSeconds != 1.2 || r.Resources.PeakRSSBytes != 12<<20 {
		t.Errorf("resources %+v, want the larger of the two shards' measurements", r.Resources)
	}
	if got, want := r.Metrics[CPUPerIteration], 1.2*1000/float64(want.Completed); math.Abs(got-want) > 1e-12 {
		t.Errorf("cpu per iteration %v, want %v", got, want)
	}
	wantNotes := []string{"CPU and memory of the same target", "shard 1 of 4: shard 1 alone", "shard 4 of 4: shard 4 alone"}
	for _, n := range wantNotes {
		if !slices.Contains(r.Notes, n) {
			t.Errorf("notes %q lack %q", r.Notes, n)
		}
	}
	if !strings.HasPrefix(r.Notes[0], "merged from 4 shards, which measured together for 9.97 s of the 10.03 s window") {
		t.Errorf("first note %q", r.Notes[0])
	}
}

// Figures no shard measured stay absent from the merge.
func TestMergeKeepsAbsentFiguresAbsent(t *testing.T) {
	t.Parallel()
	files, _ := shardFiles(2, 2)
	for _, f := range files {
		r := &f.Runs[0]
		r.Resources, r.ScheduleLag, r.Metrics = nil, nil, nil
		r.Summarize()
	}
	merged, err := MergeShards(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := merged.Runs[0]
	if r.Resources != nil || r.ScheduleLag != nil {
		t.Errorf("resources %+v, schedule lag %v: want both absent", r.Resources, r.ScheduleLag)
	}
	for _, k := range []string{CPUPerIteration, PeakRSS, ScheduleLagP99} {
		if v, ok := r.Metrics[k]; ok {
			t.Errorf("metric %s = %v; no shard measured it", k, v)
		}
	}
}

// A merged file survives its JSON, shard fields and histograms included.
func TestMergedFileRoundTrip(t *testing.T) {
	t.Parallel()
	files, _ := shardFiles(3, 3)
	var buf bytes.Buffer
	if err := Encode(&buf, files[1]); err != nil {
		t.Fatal(err)
	}
	shard, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if *shard.Shard != *files[1].Shard {
		t.Errorf("shard %+v after a round trip, want %+v", shard.Shard, files[1].Shard)
	}
	files[1] = shard
	merged, err := MergeShards(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := Encode(&buf, merged); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"merged": {`, `"shards": 3`, `"overlap_s": 9.98`} {
		if !strings.Contains(buf.String(), key) {
			t.Errorf("merged JSON lacks %s", key)
		}
	}
	back, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Runs[0].Latency.Count() != merged.Runs[0].Latency.Count() || back.Runs[0].Metrics[LatencyP99] != merged.Runs[0].Metrics[LatencyP99] {
		t.Errorf("merged run differs after a round trip")
	}
}

func TestMergeRefusesWhatIsNotOneShardedRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(fs []*File) []*File
		want   string
	}{
		{"a whole run", func(fs []*File) []*File { fs[1].Shard = nil; return fs }, "b.json is not a shard result"},
		{"an imported file", func(fs []*File) []*File { fs[0].Source = "k6-summary-export"; return fs }, "a.json is not a shard result"},
		{"different shard counts", func(fs []*File) []*File { fs[2].Shard.Count = 4; return fs }, "a.json is shard 1/3 but c.json is 3/4"},
		{"a shard twice", func(fs []*File) []*File { fs[2].Shard.Index = 2; return fs }, "b.json and c.json are both shard 2/3"},
		{"a shard missing", func(fs []*File) []*File { return fs[:2] }, "shard 3/3 missing"},
		{"different definitions", func(fs []*File) []*File { fs[1].DefinitionHash = "sha256:other"; return fs }, "a.json and b.json measured different benchmark definitions"},
		{"different start times", func(fs []*File) []*File { fs[2].Shard.StartAt = mergeStart.Add(time.Minute); return fs }, "a.json and c.json were started for different times"},
		{"different run counts", func(fs []*File) []*File { fs[1].Runs = append(fs[1].Runs, fs[1].Runs[0]); return fs }, "a.json has 1 runs but b.json has 2"},
		{"windows apart", func(fs []*File) []*File { fs[1].Runs[0].Started = mergeStart.Add(11 * time.Second); return fs }, "run 1: the shards' measure windows do not overlap"},
		{"no window", func(fs []*File) []*File { fs[1].Runs[0].Window = 0; return fs }, "run 1: shard 2 has no measure window"},
		{"different models", func(fs []*File) []*File { fs[2].Runs[0].Model = "closed"; return fs }, "shard 3 the closed model"},
		{"a merged file", func(fs []*File) []*File { fs[0].Merged = &Merged{Shards: 3}; return fs }, "a.json is already a merged result"},
		{"nothing", func([]*File) []*File { return nil }, "no shard files"},
	}
	for _, c := range cases {
		files, _ := shardFiles(3, 4)
		_, err := MergeShards(c.change(files), []string{"a.json", "b.json", "c.json"})
		if !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrMerge saying %q", c.name, err, c.want)
		}
	}
}
