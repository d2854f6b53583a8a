package locust

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// run assembles the family into one run.
func (fam *family) run() (*result.Run, error) {
	st, err := readTable(fam.statsName, fam.stats)
	if err != nil {
		return nil, err
	}
	var dist *table
	if fam.dist != nil {
		if dist, err = readTable(fam.distName, fam.dist); err != nil {
			return nil, err
		}
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
		return nil, &importer.Unsupported{File: fam.statsName, Reason: "Locust stats with no requests"}
	}
	if err := fam.addHistory(run, total); err != nil {
		return nil, err
	}
	if fam.failures != nil {
		ft, err := readTable(fam.failuresName, fam.failures)
		if err != nil {
			return nil, err
		}
		addCutNote(run, ft)
		if run.Errors, err = parseFailures(ft); err != nil {
			return nil, err
		}
	}
	if hasPercentile(run.Metrics) {
		run.Notes = append(run.Notes, roundingNote)
	}
	if !namesValid(rows) {
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
	for k, v := range total.metrics {
		run.Metrics[k] = v
	}
	if total.hasRPS && total.rps > 0 {
		run.Metrics[result.RequestsPerSec] = total.rps
	}
	return total
}

// addHistory takes the run's time span from the stats history when the
// history covers the whole run; otherwise the window is the request count
// over Locust's own request rate.
func (fam *family) addHistory(run *result.Run, total *statRow) error {
	rps := run.Metrics[result.RequestsPerSec]
	if rps > 0 {
		run.Window = float64(run.Requests.Total) / rps
	}
	if fam.history == nil {
		return nil
	}
	ht, err := readTable(fam.historyName, fam.history)
	if err != nil {
		return err
	}
	addCutNote(run, ht)
	sp, err := parseHistory(ht)
	if err != nil || sp == nil {
		return err
	}
	run.Started = sp.first
	if sp.lastTotal >= 0 && total != nil && !covers(sp.lastTotal, total.requests) {
		run.Notes = append(run.Notes, fmt.Sprintf("stats history ends early (%d of %d requests): the window is taken from the request rate", sp.lastTotal, total.requests))
		return nil
	}
	end := sp.last
	if !sp.stop.IsZero() && sp.stop.Before(end) && sp.lastTotal > 0 {
		end = sp.stop
		run.Notes = append(run.Notes, fmt.Sprintf("the stats history goes on for %v after the last requests: the window ends at %s", sp.last.Sub(end), end.UTC().Format(time.RFC3339)))
	}
	if w := end.Sub(sp.first).Seconds(); w > 0 {
		run.Window = w
	}
	return nil
}

func addCutNote(run *result.Run, t *table) {
	if t != nil && t.cutLine > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("file %s was cut: line %d is incomplete and was skipped", t.file, t.cutLine))
	}
}

func hasPercentile(m map[string]float64) bool {
	for _, p := range percentileCols {
		if _, ok := m[p.key]; ok {
			return true
		}
	}
	return false
}

func namesValid(rows []statRow) bool {
	for _, r := range rows {
		if !utf8.ValidString(r.name) {
			return false
		}
	}
	return true
}

// covers says the history's last cumulative count reaches the run's total.
// Locust writes the final stats a moment after the last history row, so a
// shortfall of up to 1 % (or one request) is the normal end of a run.
func covers(historyTotal, total int64) bool {
	return historyTotal >= total-1 || float64(historyTotal) >= 0.99*float64(total)
}
