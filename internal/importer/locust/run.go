package locust

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func (fam *family) run() (*result.Run, error) {
	st, err1 := readTable(fam.stats)
	dist, err2 := readTable(fam.dist)
	if err := cmp.Or(err1, err2); err != nil {
		return nil, err
	}
	rows, err := parseStats(st, dist)
	if err != nil {
		return nil, err
	}
	run := &result.Run{Metrics: map[string]float64{}}
	addCutNote(run, st)
	addCutNote(run, dist)
	total := fillFromStats(run, rows)
	if run.Requests.Total == 0 {
		return nil, &importer.Unsupported{File: fam.stats.name, Reason: "Locust stats with no requests"}
	}
	if err := fam.addHistory(run, total); err != nil {
		return nil, err
	}
	if ft, err := readTable(fam.failures); err != nil {
		return nil, err
	} else if ft != nil {
		addCutNote(run, ft)
		if run.Errors, err = parseFailures(ft); err != nil {
			return nil, err
		}
	}
	for _, p := range percentileCols {
		if _, ok := run.Metrics[p.key]; ok {
			run.Notes = append(run.Notes, roundingNote)
			break
		}
	}
	if slices.ContainsFunc(rows, func(r statRow) bool { return !utf8.ValidString(r.name) }) {
		run.Notes = append(run.Notes, nonUTF8Note)
	}
	run.Summarize()
	return run, nil
}

// fillFromStats sets counts and figures from the Aggregated row and makes
// the other rows steps. Without an Aggregated row (a cut file) the counts
// are summed, and run percentiles are not available.
func fillFromStats(run *result.Run, rows []statRow) *statRow {
	var total *statRow
	var sumRPS float64
	run.Requests.Counted = result.CountRequests // the stats table has both columns
	for i, r := range rows {
		if r.total {
			total = &rows[i]
			continue
		}
		step := result.Step{Name: cleanName(r.name), Requests: r.requests, Failed: r.failed, Metrics: r.metrics}
		if r.hasRPS {
			step.Metrics[result.RequestsPerSec] = r.rps
		}
		if r.requests > 0 {
			step.Metrics[result.RequestErrorPct] = 100 * float64(r.failed) / float64(r.requests)
		}
		run.Steps = append(run.Steps, step)
		run.Requests.Total += r.requests
		run.Requests.Failed += r.failed
		sumRPS += r.rps
	}
	if total == nil {
		if sumRPS > 0 {
			run.Metrics[result.RequestsPerSec] = sumRPS
		}
		run.Notes = append(run.Notes, "no Aggregated row: counts are summed over the requests, run latency figures are not available")
		return nil
	}
	run.Requests = result.Requests{Total: total.requests, Failed: total.failed, Counted: result.CountRequests}
	maps.Copy(run.Metrics, total.metrics)
	if total.hasRPS && total.rps > 0 {
		run.Metrics[result.RequestsPerSec] = total.rps
	}
	return total
}

// addHistory takes the run's time span from the stats history when the
// history covers the whole run; otherwise the window is the request count
// over Locust's own request rate.
func (fam *family) addHistory(run *result.Run, total *statRow) error {
	if rps := run.Metrics[result.RequestsPerSec]; rps > 0 {
		run.Window = float64(run.Requests.Total) / rps
	}
	ht, err := readTable(fam.history)
	if err != nil || ht == nil {
		return err
	}
	addCutNote(run, ht)
	sp, err := parseHistory(ht)
	if err != nil || sp == nil {
		return err
	}
	run.Started = sp.First
	// Locust writes the final stats a moment after the last history row:
	// a shortfall of up to 1 % (or one request) is the normal end of a run.
	if n := sp.lastTotal; n >= 0 && total != nil && n < total.requests-1 && float64(n) < 0.99*float64(total.requests) {
		run.Notes = append(run.Notes, fmt.Sprintf("stats history ends early (%d of %d requests): the window is taken from the request rate", n, total.requests))
		return nil
	}
	end := sp.Last
	if !sp.stop.IsZero() && sp.stop.Before(end) && sp.lastTotal > 0 {
		end = sp.stop
		run.Notes = append(run.Notes, fmt.Sprintf("the stats history goes on for %v after the last requests: the window ends at %s", sp.Last.Sub(end), end.UTC().Format(time.RFC3339)))
	}
	if w := end.Sub(sp.First).Seconds(); w > 0 {
		run.Window = w
	}
	return nil
}

func addCutNote(run *result.Run, t *table) {
	if t != nil && t.cutLine > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("file %s was cut: line %d is incomplete and was skipped", t.file, t.cutLine))
	}
}

// span is the time the stats history covers; lastTotal is
// the last Aggregated row's cumulative request count (-1: no such column),
// stop the row on which it last grew (where requests stopped, when the
// history runs on idle after the test).
type span struct {
	rawrun.Span
	stop      time.Time
	lastTotal int64
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
		s.Add(at, at)
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
	if s.First.IsZero() {
		return nil, nil
	}
	return s, nil
}
