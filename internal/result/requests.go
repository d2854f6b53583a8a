package result

import "encoding/json"

type RequestCounts uint8

const (
	CountTotal RequestCounts = 1 << iota
	CountFailed
	// CountRequests is both: what tailgate's own runs and every
	// per-request format count.
	CountRequests = CountTotal | CountFailed
)

// requestsJSON is the JSON of Requests: an unknown count is absent.
type requestsJSON struct {
	Total  *int64 `json:"total,omitempty"`
	Failed *int64 `json:"failed,omitempty"`
}

// IsZero reports whether the run has no request count at all, so that the
// "requests" object is left out of its JSON.
func (q Requests) IsZero() bool { return q.Counted == 0 }

// Plus is the sum of two runs' requests: a count is counted in the sum
// only where both count it.
func (q Requests) Plus(o Requests) Requests {
	return Requests{Total: q.Total + o.Total, Failed: q.Failed + o.Failed, Counted: q.Counted & o.Counted}
}

// MarshalJSON writes the counts Counted names; the rest are absent. Both
// counted, as in tailgate's own runs, it is {"total": …, "failed": …}.
func (q Requests) MarshalJSON() ([]byte, error) {
	return json.Marshal(requestsJSON{Total: ifCounted(q.Counted, CountTotal, &q.Total), Failed: ifCounted(q.Counted, CountFailed, &q.Failed)})
}

// UnmarshalJSON reads the form MarshalJSON writes: a count present is
// counted, even when 0.
func (q *Requests) UnmarshalJSON(b []byte) error {
	var j requestsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*q = Requests{}
	readCount(j.Total, &q.Total, &q.Counted, CountTotal)
	readCount(j.Failed, &q.Failed, &q.Counted, CountFailed)
	return nil
}
