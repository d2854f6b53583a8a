package locust

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// span is what the stats history says about the run's time.
type span struct {
	first, last time.Time
	// lastTotal is the cumulative request count on the last Aggregated
	// row; -1 when the history has no such column.
	lastTotal int64
	// stop is the row on which that count last grew: where requests
	// stopped, when the history runs on idle after the test.
	stop time.Time
}

// parseHistory reads the Timestamp column (Unix seconds) of every row.
func parseHistory(t *table) (*span, error) {
	if !t.has("timestamp") {
		return nil, &importer.SyntaxError{File: t.file, Line: 1, Msg: "no Timestamp column; expected a Locust stats history header (Timestamp,User Count,…)"}
	}
	s := &span{lastTotal: -1}
	for _, r := range t.rows {
		ts := strings.TrimSpace(r.str("timestamp"))
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return nil, &importer.SyntaxError{File: t.file, Line: r.line, Msg: fmt.Sprintf("column \"timestamp\": expected Unix seconds, got %q", ts)}
		}
		at := time.Unix(sec, 0)
		if err := importer.CheckTime(at); err != nil {
			return nil, &importer.SyntaxError{File: t.file, Line: r.line, Msg: fmt.Sprintf("column \"timestamp\": %v", err)}
		}
		if s.first.IsZero() || at.Before(s.first) {
			s.first = at
		}
		if at.After(s.last) {
			s.last = at
		}
		if r.str("name") != "Aggregated" || !t.has("total request count") {
			continue
		}
		n, ok, err := r.num("total request count")
		if err != nil {
			return nil, err
		}
		if ok && int64(n) > s.lastTotal {
			s.stop = at
		}
		if ok {
			s.lastTotal = int64(n)
		}
	}
	if s.first.IsZero() {
		return nil, nil
	}
	return s, nil
}
