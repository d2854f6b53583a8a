package load

import (
	"math"
	"time"
)

// A Pacer says when open-model iterations are due, as a pure function (no
// clock). Pace returns how long after elapsed hit number hits (from 0) is
// due, 0 when it is (Pace(0, n) is hit n's offset from the start); stop:
// it never comes. Rate is the rate, in hits per second, at elapsed.
type Pacer interface {
	Pace(elapsed time.Duration, hits uint64) (wait time.Duration, stop bool)
	Rate(elapsed time.Duration) float64
}

// Constant offers PerSecond hits per second: hit n is due at n/PerSecond.
type Constant struct {
	PerSecond float64
}

func (c Constant) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if !(c.PerSecond > 0) || math.IsInf(c.PerSecond, 0) {
		return 0, true
	}
	return waitFor(seconds(float64(hits)/c.PerSecond), elapsed)
}

func (c Constant) Rate(time.Duration) float64 { return c.PerSecond }

// LinearRamp offers a rate moving linearly from From to To hits per second
// over Over, then To: hit n is due when the rate's integral reaches n.
type LinearRamp struct {
	From, To float64
	Over     time.Duration
}

func (l LinearRamp) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if l.From < 0 || l.To < 0 || l.Over < 0 {
		return 0, true
	}
	t, ok := l.due(float64(hits))
	if !ok {
		return 0, true
	}
	return waitFor(seconds(t), elapsed)
}

// due solves From·t + slope·t²/2 = n for t (in seconds) inside the ramp, and
// continues at To after it.
func (l LinearRamp) due(n float64) (float64, bool) {
	over := l.Over.Seconds()
	inRamp := (l.From + l.To) / 2 * over // hits offered during the ramp
	if n <= inRamp && over > 0 {
		half := (l.To - l.From) / over / 2
		// t = 2n / (b + sqrt(b² + 4an)): stable when the slope is ~0.
		d := l.From + math.Sqrt(math.Max(0, l.From*l.From+4*half*n))
		if d <= 0 {
			return 0, n == 0
		}
		return 2 * n / d, true
	}
	if !(l.To > 0) {
		return 0, false
	}
	return over + (n-inRamp)/l.To, true
}

func (l LinearRamp) Rate(elapsed time.Duration) float64 {
	if elapsed >= l.Over || l.Over <= 0 {
		return l.To
	}
	return l.From + (l.To-l.From)*float64(elapsed)/float64(l.Over)
}

func seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/1e9 {
		return math.MaxInt64
	}
	return time.Duration(s * 1e9)
}

func waitFor(due, elapsed time.Duration) (time.Duration, bool) {
	if due <= elapsed {
		return 0, false
	}
	return due - elapsed, false
}
