package load

import (
	"math"
	"testing"
	"time"
)

func TestConstantPace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pacer   Constant
		elapsed time.Duration
		hits    uint64
		wait    time.Duration
		stop    bool
	}{
		{Constant{1}, 0, 0, 0, false},           // the first hit is due at once
		{Constant{1}, 0, 1, time.Second, false}, // 1/s, 1 sent, at 0s => 1s
		{Constant{1}, 500 * time.Millisecond, 1, 500 * time.Millisecond, false},
		{Constant{1}, 2 * time.Second, 1, 0, false},         // behind schedule => now
		{Constant{2000}, 0, 20000, 10 * time.Second, false}, // 20,000th hit at 2000/s => 10s
		{Constant{2000}, 9 * time.Second, 20000, time.Second, false},
		{Constant{0}, 0, 0, 0, true}, // no rate => never
		{Constant{-5}, 0, 3, 0, true},
		{Constant{math.Inf(1)}, 0, 3, 0, true},
		{Constant{math.NaN()}, 0, 3, 0, true},
	}
	for _, tt := range tests {
		wait, stop := tt.pacer.Pace(tt.elapsed, tt.hits)
		if wait != tt.wait || stop != tt.stop {
			t.Errorf("%+v.Pace(%v, %d) = %v, %v; want %v, %v", tt.pacer, tt.elapsed, tt.hits, wait, stop, tt.wait, tt.stop)
		}
	}
	if r := (Constant{250}).Rate(time.Hour); r != 250 {
		t.Errorf("Rate = %v, want 250", r)
	}
}

func TestLinearRampPace(t *testing.T) {
	t.Parallel()
	up := LinearRamp{From: 0, To: 10, Over: 10 * time.Second} // 50 hits during the ramp
	down := LinearRamp{From: 10, To: 0, Over: 10 * time.Second}
	flat := LinearRamp{From: 4, To: 4, Over: 5 * time.Second}
	near := func(a, b time.Duration) bool { return (a - b).Abs() <= time.Microsecond }
	tests := []struct {
		name string
		p    LinearRamp
		hits uint64
		due  time.Duration
		stop bool
	}{
		{"up: first hit at 0", up, 0, 0, false},
		{"up: t²/2 = 2 => t = 2s", up, 2, 2 * time.Second, false},
		{"up: end of ramp", up, 50, 10 * time.Second, false},
		{"up: after the ramp at 10/s", up, 60, 11 * time.Second, false},
		{"down: 10t - t²/2 = 18 => t = 2s", down, 18, 2 * time.Second, false},
		{"down: last hit at the end", down, 50, 10 * time.Second, false},
		{"down: nothing after reaching 0", down, 51, 0, true},
		{"flat ramp is constant", flat, 8, 2 * time.Second, false},
		{"flat after ramp", flat, 24, 6 * time.Second, false},
		{"no ramp duration", LinearRamp{From: 1, To: 5}, 10, 2 * time.Second, false},
		{"negative rate", LinearRamp{From: -1, To: 5, Over: time.Second}, 1, 0, true},
	}
	for _, tt := range tests {
		due, stop := tt.p.Pace(0, tt.hits)
		if stop != tt.stop || (!stop && !near(due, tt.due)) {
			t.Errorf("%s: Pace(0, %d) = %v, %v; want %v, %v", tt.name, tt.hits, due, stop, tt.due, tt.stop)
		}
	}
	if w, _ := up.Pace(time.Second, 2); !near(w, time.Second) {
		t.Errorf("Pace(1s, 2) = %v, want 1s (due at 2s)", w)
	}
	if w, _ := up.Pace(3*time.Second, 2); w != 0 {
		t.Errorf("Pace(3s, 2) = %v, want 0 (overdue)", w)
	}
	for _, c := range []struct {
		at   time.Duration
		rate float64
	}{{0, 0}, {5 * time.Second, 5}, {10 * time.Second, 10}, {time.Minute, 10}} {
		if r := up.Rate(c.at); math.Abs(r-c.rate) > 1e-9 {
			t.Errorf("Rate(%v) = %v, want %v", c.at, r, c.rate)
		}
	}
}

// Due times must never go backwards, or the scheduler would reorder hits.
func TestPacersAreMonotonic(t *testing.T) {
	t.Parallel()
	for _, p := range []Pacer{
		Constant{3000},
		LinearRamp{From: 100, To: 5000, Over: 3 * time.Second},
		LinearRamp{From: 5000, To: 100, Over: 3 * time.Second},
		LinearRamp{From: 0, To: 1, Over: time.Minute},
	} {
		var last time.Duration
		for n := uint64(0); n < 20000; n++ {
			due, stop := p.Pace(0, n)
			if stop {
				t.Fatalf("%+v stopped at hit %d", p, n)
			}
			if due < last {
				t.Fatalf("%+v: hit %d due at %v, before hit %d at %v", p, n, due, n-1, last)
			}
			last = due
		}
	}
}
