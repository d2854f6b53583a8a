// Package hist owns latency histograms: recording at microsecond resolution,
// quantiles, merging and a compact text encoding for result files. It wraps
// HdrHistogram so that no other package depends on that library's units
// (its ValueAtPercentile takes 0–100; Quantile here takes 0–1) or on its
// percentile rule (see Rank: tailgate's is nearest-rank, HdrHistogram's
// rounds the rank).
package hist

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	lowestMicros  = 1
	highestMicros = int64(time.Hour / time.Microsecond)
	sigFigs       = 3
)

// Histogram records durations with 3 significant digits from 1 µs to 1 h,
// clamping (never dropping) values outside. It is not safe for concurrent
// use.
type Histogram struct {
	h *hdr.Histogram
}

// New returns an empty histogram.
func New() *Histogram {
	return &Histogram{h: hdr.New(lowestMicros, highestMicros, sigFigs)}
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) {
	_ = h.h.RecordValue(min(max(d.Microseconds(), lowestMicros), highestMicros)) // cannot fail: clamped into range
}

// Merge adds every value recorded in o.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		return
	}
	h.h.Merge(o.h)
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Rank is the nearest-rank rule, tailgate's one percentile rule: the q
// quantile of n values is at rank ceil(q·n) (1-based), clamped to [1, n],
// so it never reports a value below the q share of the samples (on 71
// samples the p99 is the largest). q·n is first rounded to 13 significant
// digits (0.07·100 is rank 7); q outside [0, 1] is clamped, NaN is 0.
func Rank(q float64, n int64) int64 {
	if n <= 0 {
		return 0
	}
	if !(q > 0) {
		return 1
	}
	if q >= 1 {
		return n
	}
	x := q * float64(n)
	k := int64(math.Ceil(x * (1 - 1e-13)))
	return min(max(k, 1), n)
}

// Quantile returns the value at quantile q in [0, 1] (0.95 is p95) by
// Rank, to histogram precision (the top of the bucket holding that rank);
// 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	return h.Quantiles(q)[0]
}

// Quantiles returns the value at each quantile of qs, in order, with one
// walk over the counts (see Quantile).
func (h *Histogram) Quantiles(qs ...float64) []time.Duration {
	out := make([]time.Duration, len(qs))
	n := h.Count()
	if n == 0 {
		return out
	}
	ranks := make([]int64, len(qs))
	for i, q := range qs {
		ranks[i] = Rank(q, n)
	}
	bars := h.h.Distribution()
	for i, k := range ranks {
		var cum int64
		for _, b := range bars {
			if cum += b.Count; cum >= k {
				out[i] = micros(b.To)
				break
			}
		}
	}
	return out
}

// Max returns the largest recorded value (to histogram precision).
func (h *Histogram) Max() time.Duration { return micros(h.h.Max()) }

// Min returns the smallest recorded value (to histogram precision).
func (h *Histogram) Min() time.Duration { return micros(h.h.Min()) }

// Mean returns the mean of the recorded values.
func (h *Histogram) Mean() time.Duration {
	return time.Duration(h.h.Mean() * float64(time.Microsecond))
}

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram { return &Histogram{h: h.h.Clone()} }

// Encode returns the standard HdrHistogram V2 compressed base64 form, which
// other HdrHistogram implementations can read too.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding histogram: %w", err)
	}
	return string(b), nil
}

// Decode parses the form written by Encode.
func Decode(s string) (*Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return &Histogram{h: h}, nil
}

// MarshalJSON writes the histogram as its encoded string.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	s, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// UnmarshalJSON reads the form written by MarshalJSON.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("histogram must be an encoded string: %w", err)
	}
	d, err := Decode(s)
	if err != nil {
		return err
	}
	*h = *d
	return nil
}

func micros(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
