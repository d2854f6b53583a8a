package result

import "encoding/json"

type Counts uint8

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
	return json.Marshal(iterationsJSON{Offered: it.Offered, Dropped: it.Dropped, Started: ifCounted(it.Counted, CountStarted, &it.Started),
		Completed: ifCounted(it.Counted, CountCompleted, &it.Completed), Succeeded: ifCounted(it.Counted, CountSucceeded, &it.Succeeded)})
}

// UnmarshalJSON reads the form MarshalJSON writes: a count present is
// counted, even when 0.
func (it *Iterations) UnmarshalJSON(b []byte) error {
	var j iterationsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*it = Iterations{Offered: j.Offered, Dropped: j.Dropped}
	readCount(j.Started, &it.Started, &it.Counted, CountStarted)
	readCount(j.Completed, &it.Completed, &it.Counted, CountCompleted)
	readCount(j.Succeeded, &it.Succeeded, &it.Counted, CountSucceeded)
	return nil
}

// ifCounted is the count v points at when counted holds bit, else nil
// (absent from the JSON).
func ifCounted[T ~uint8](counted, bit T, v *int64) *int64 {
	if counted&bit == 0 {
		return nil
	}
	return v
}

// readCount takes a count present in the JSON into v and marks it counted.
func readCount[T ~uint8](j, v *int64, counted *T, bit T) {
	if j != nil {
		*v, *counted = *j, *counted|bit
	}
}
