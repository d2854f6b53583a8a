package hist

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// within reports whether got is the recorded value want to histogram
// precision: 3 significant digits, reported as the top of want's bucket.
func within(got, want time.Duration) bool {
	return got >= want && float64(got-want) <= 0.001*float64(want)+float64(time.Microsecond)
}

func fromMillis(ms ...int) *Histogram {
	h := New()
	for _, v := range ms {
		h.Record(time.Duration(v) * time.Millisecond)
	}
	return h
}

func TestRankIsNearestRank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    float64
		n    int64
		want int64
	}{
		{0.5, 1, 1}, {0.99, 1, 1},
		{0.5, 2, 1}, {0.51, 2, 2},
		{0.5, 10, 5}, {0.9, 10, 9}, {0.95, 10, 10}, {0.99, 10, 10},
		{0.95, 20, 19}, {0.99, 71, 71}, {0.95, 71, 68}, {0.5, 71, 36},
		{0.07, 100, 7}, {0.99, 100, 99}, {0.999, 1000, 999}, {0.9999, 10000, 9999},
		{0.95, 1_000_000_000, 950_000_000},
		// Clamping: q outside [0, 1], NaN, and an empty sample.
		{0, 10, 1}, {-0.5, 10, 1}, {1, 10, 10}, {1.5, 10, 10}, {math.NaN(), 10, 1}, {math.Inf(1), 10, 10},
		{0.5, 0, 0},
	} {
		if got := Rank(c.q, c.n); got != c.want {
			t.Errorf("Rank(%v, %d) = %d, want %d", c.q, c.n, got, c.want)
		}
	}
}

// On small samples nearest-rank reports the tail HdrHistogram's rounded
// rank hides: with 71 values its p99 is the largest, not the second.
func TestQuantileOnSmallSamplesDoesNotFlatterTheTail(t *testing.T) {
	t.Parallel()
	ms := make([]int, 71)
	for i := range ms {
		ms[i] = 10 + i // 10 … 79 ms, then a slow outlier
	}
	ms[70] = 780
	h := fromMillis(ms...)
	if got := h.Quantile(0.99); !within(got, 780*time.Millisecond) {
		t.Errorf("p99 of 71 = %v, want the largest (780ms)", got)
	}
	if got := h.h.ValueAtPercentile(99); got >= 780_000 {
		t.Errorf("HdrHistogram's own p99 = %d µs; this test no longer shows the difference", got)
	}
	if got := h.Quantile(0.5); !within(got, 45*time.Millisecond) {
		t.Errorf("p50 of 71 = %v, want rank 36 (45ms)", got)
	}
	// Ten values: p90 is the 9th, p95 and p99 the 10th.
	h = fromMillis(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	for q, want := range map[float64]int{0.1: 1, 0.5: 5, 0.9: 9, 0.95: 10, 0.99: 10, 1: 10} {
		if got := h.Quantile(q); !within(got, time.Duration(want)*time.Millisecond) {
			t.Errorf("q%v of 1…10 ms = %v, want %d ms", q, got, want)
		}
	}
}

// Quantile takes 0–1, not HdrHistogram's 0–100: 0.95 is p95, not p0.95,
// and a value above 1 is clamped to the maximum, not read as a percentile.
func TestQuantileTakesAShareNotAPercent(t *testing.T) {
	t.Parallel()
	ms := make([]int, 100)
	for i := range ms {
		ms[i] = i + 1
	}
	h := fromMillis(ms...)
	if got := h.Quantile(0.95); !within(got, 95*time.Millisecond) {
		t.Errorf("Quantile(0.95) = %v, want p95 = 95ms", got)
	}
	if got := h.Quantile(95); !within(got, 100*time.Millisecond) {
		t.Errorf("Quantile(95) = %v, want the clamped maximum 100ms", got)
	}
	if got := h.Quantile(-1); !within(got, time.Millisecond) {
		t.Errorf("Quantile(-1) = %v, want the minimum 1ms", got)
	}
	qs := h.Quantiles(0.5, 0.9, 0.99)
	for i, want := range []time.Duration{50, 90, 99} {
		if !within(qs[i], want*time.Millisecond) {
			t.Errorf("Quantiles[%d] = %v, want %v ms", i, qs[i], want)
		}
	}
	if got := New().Quantile(0.5); got != 0 {
		t.Errorf("empty histogram p50 = %v, want 0", got)
	}
}

// Nearest-rank on the histogram matches nearest-rank on the sorted values,
// to histogram precision, for random samples of many sizes.
func TestQuantileMatchesSortedValues(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 19, 71, 100, 1000, 12345} {
		vals := make([]time.Duration, n)
		h := New()
		for i := range vals {
			vals[i] = time.Duration(rng.ExpFloat64()*20_000) * time.Microsecond
			vals[i] = max(vals[i], time.Microsecond).Truncate(time.Microsecond)
			h.Record(vals[i])
		}
		sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
		for _, q := range []float64{0, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			want := vals[Rank(q, int64(n))-1]
			if got := h.Quantile(q); !within(got, want) {
				t.Errorf("n=%d q=%v: %v, want %v", n, q, got, want)
			}
		}
	}
}

func TestRecordClampsIntoRange(t *testing.T) {
	t.Parallel()
	h := New()
	h.Record(-time.Second)
	h.Record(0)
	h.Record(2 * time.Hour)
	if h.Count() != 3 {
		t.Fatalf("count %d, want 3: clamped values still count", h.Count())
	}
	if got := h.Min(); got != time.Microsecond {
		t.Errorf("min %v, want 1µs", got)
	}
	if got := h.Max(); !within(got, time.Hour) {
		t.Errorf("max %v, want 1h", got)
	}
}

func TestMergeAddsCounts(t *testing.T) {
	t.Parallel()
	a, b := fromMillis(1, 2, 3), fromMillis(10, 20)
	a.Merge(b)
	a.Merge(nil)
	if a.Count() != 5 || !within(a.Max(), 20*time.Millisecond) || !within(a.Quantile(0.6), 3*time.Millisecond) {
		t.Errorf("merged: count %d, max %v, p60 %v", a.Count(), a.Max(), a.Quantile(0.6))
	}
	if b.Count() != 2 {
		t.Errorf("merge changed its argument: %d", b.Count())
	}
	c := a.Clone()
	c.Record(time.Second)
	if a.Count() != 5 || c.Count() != 6 {
		t.Errorf("clone not independent: %d, %d", a.Count(), c.Count())
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	h := fromMillis(1, 5, 5, 40, 700, 3000)
	s, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if d.Count() != h.Count() || d.Max() != h.Max() || d.Min() != h.Min() || d.Quantile(0.5) != h.Quantile(0.5) {
		t.Errorf("decoded: count %d max %v min %v p50 %v; want %d %v %v %v",
			d.Count(), d.Max(), d.Min(), d.Quantile(0.5), h.Count(), h.Max(), h.Min(), h.Quantile(0.5))
	}
	b, err := json.Marshal(struct{ L *Histogram }{h})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ L *Histogram }
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.L.Count() != 6 || back.L.Quantile(0.99) != h.Quantile(0.99) {
		t.Errorf("JSON round trip: count %d p99 %v", back.L.Count(), back.L.Quantile(0.99))
	}
	for _, bad := range []string{`"not a histogram"`, `42`, `"HISTFAAAAA"`} {
		var x Histogram
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("decoded %s without an error", bad)
		}
	}
}
