package result

import "encoding/json"

// Counts is a set of the iteration counts a run has.
type Counts uint8

// The iteration counts a source may have.
const (
	CountStarted Counts = 1 << iota
	CountCompleted
	CountSucceeded
	// CountAll is what tailgate's own runs count.
	CountAll = CountStarted | CountCompleted | CountSucceeded
)

// iterationsJSON is the JSON of Iterations: an unknown count is absent.
type iterationsJSON struct {
	Offered   int64  `json:"offered,omitempty"`
	Started   *int64 `json:"started,omitempty"`
	Completed *int64 `json:"completed,omitempty"`
	Succeeded *int64 `json:"succeeded,omitempty"`
	Dropped   int64  `json:"dropped,omitempty"`
}

// IsZero reports whether the run has no iteration figure at all, so that
// the "iterations" object is left out of its JSON.
func (it Iterations) IsZero() bool { return it.Counted == 0 && it.Offered == 0 && it.Dropped == 0 }

// MarshalJSON writes the counts Counted names; the rest are absent.
func (it Iterations) MarshalJSON() ([]byte, error) {
	j := iterationsJSON{Offered: it.Offered, Dropped: it.Dropped}
	if it.Counted&CountStarted != 0 {
		j.Started = &it.Started
	}
	if it.Counted&CountCompleted != 0 {
		j.Completed = &it.Completed
	}
	if it.Counted&CountSucceeded != 0 {
		j.Succeeded = &it.Succeeded
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form MarshalJSON writes: a count that is present
// is counted, even when it is 0 (files written before counts could be
// absent have all three).
func (it *Iterations) UnmarshalJSON(b []byte) error {
	var j iterationsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*it = Iterations{Offered: j.Offered, Dropped: j.Dropped}
	if j.Started != nil {
		it.Started, it.Counted = *j.Started, it.Counted|CountStarted
	}
	if j.Completed != nil {
		it.Completed, it.Counted = *j.Completed, it.Counted|CountCompleted
	}
	if j.Succeeded != nil {
		it.Succeeded, it.Counted = *j.Succeeded, it.Counted|CountSucceeded
	}
	return nil
}
