package rawrun

import "time"

// Span is the time a run's records cover: from the earliest start to the
// latest end. The zero Span has seen nothing.
type Span struct {
	First, Last time.Time
}

// Add widens the span to cover a record from start to end.
func (s *Span) Add(start, end time.Time) {
	if s.First.IsZero() || start.Before(s.First) {
		s.First = start
	}
	if end.After(s.Last) {
		s.Last = end
	}
}

// Seconds is the span's length.
func (s Span) Seconds() float64 { return s.Last.Sub(s.First).Seconds() }
