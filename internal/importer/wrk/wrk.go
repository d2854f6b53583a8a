// Package wrk owns the importer of wrk and wrk2 text output: summary
// figures only. wrk2's table has no 95th percentile: its p95 is the
// 0.950000 row of the detailed spectrum.
package wrk

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(Text{}) }

// Text reads wrk or wrk2 reports; a log may hold several (a sweep).
type Text struct{}

func (Text) Name() string { return "wrk-text" }

var (
	runningRe  = regexp.MustCompile(`^Running \S+ test @ `)
	latencyRe  = regexp.MustCompile(`^Latency\s+(\S+)\s+(\S+)\s+(\S+)`)
	percentRe  = regexp.MustCompile(`^(\d+(?:\.\d+)?)%\s+(\d\S*)$`)
	requestsRe = regexp.MustCompile(`^(\d+) requests in ([^,]+),`)
	rateRe     = regexp.MustCompile(`^Requests/sec:\s+(\S+)`)
	socketRe   = regexp.MustCompile(`^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	non2xxRe   = regexp.MustCompile(`^Non-2xx or 3xx responses: (\d+)`)
	// wrk2's detailed spectrum: value, percentile, count, 1/(1-p).
	spectrumRe = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s+([01]\.\d{6})\s+\d+\s+\S+$`)
	specMeanRe = regexp.MustCompile(`^#\[Mean\s+=\s+(\d+(?:\.\d+)?),`)
)

func (Text) Sniff(_ string, head []byte) bool {
	return bytes.Contains(head, []byte(" test @ ")) && bytes.Contains(head, []byte("Thread Stats")) &&
		bytes.Contains(head, []byte("Requests/sec:"))
}

type report struct {
	line                    int // where the report starts
	run                     *result.Run
	sawLatency, sawCount    bool
	connErrs, timeouts, bad int64
	// wrk2 marks itself with calibration lines and an HdrHistogram table.
	wrk2 bool
	// distributions counts the latency tables begun; uncorrected is set
	// inside wrk2's --u_latency table, whose latencies are timed from
	// when a request was sent, not when it was due.
	distributions int
	uncorrected   bool
	// spectrum holds rows of the first detailed spectrum by percentile,
	// and specMean its mean: in a unit wrk2 does not print (milliseconds
	// in wrk2 itself, microseconds in some builds), told by the figures
	// it shares with the table.
	spectrum map[string]float64
	specMean float64
	// sawRate is set by the Requests/sec line, which wrk prints after its
	// error lines.
	sawRate bool
}

func (t Text) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "wrk")(t.ImportAll(name, r))
}

func (Text) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	// wrk's last line, Transfer/sec, holds no figure tailgate imports: a
	// report saved without its last line break, or cut in that line, is
	// whole.
	whole := func(line string) bool { return strings.HasPrefix(line, "Transfer/sec:") }
	return importer.TextReport{Starts: runningRe.MatchString, Whole: whole}.ReadReports(name,
		`no "Running … test @ …" line; expected a wrk or wrk2 report`, r, func(line int, run *result.Run) importer.Report { return &report{line: line, run: run} })
}

func (rep *report) Take(text string) error {
	rep.wrk2 = rep.wrk2 || strings.HasPrefix(text, "Thread calibration") || strings.Contains(text, "HdrHistogram")
	if strings.HasPrefix(text, "Latency Distribution") {
		rep.distributions++
	}
	if strings.Contains(text, "Uncorrected Latency") || strings.HasPrefix(text, "Uncorrected Percentile") {
		rep.uncorrected = true
	}
	if ok, err := rep.latency(text); ok {
		return err
	}
	return rep.counts(text)
}

// latency reads the Latency line and the rows of the latency tables;
// false for any other line.
func (rep *report) latency(text string) (bool, error) {
	metrics := rep.run.Metrics
	if m := latencyRe.FindStringSubmatch(text); m != nil && !rep.sawLatency && !strings.Contains(text, "nan") {
		rep.sawLatency = true
		mean, err1 := importer.Millis(m[1])
		max, err2 := importer.Millis(m[3])
		if err1 != nil || err2 != nil {
			return true, fmt.Errorf("Latency: expected avg, stdev and max such as 15.52ms, got %q, %q", m[1], m[3])
		}
		metrics[result.LatencyMean], metrics[result.LatencyMax] = mean, max
	} else if m := spectrumRe.FindStringSubmatch(text); m != nil && !rep.uncorrected {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && rep.spectrum[m[2]] == 0 {
			if rep.spectrum == nil {
				rep.spectrum = map[string]float64{}
			}
			rep.spectrum[m[2]] = v
		}
	} else if m := specMeanRe.FindStringSubmatch(text); m != nil && !rep.uncorrected && rep.specMean == 0 {
		rep.specMean, _ = strconv.ParseFloat(m[1], 64)
	} else if m := percentRe.FindStringSubmatch(text); m != nil {
		if rep.uncorrected || rep.distributions > 1 {
			return true, nil // only the first table, wrk2's recorded latencies
		}
		v, err := importer.Millis(m[2])
		if err != nil {
			return true, fmt.Errorf("latency %s%%: expected a duration such as 15.25ms, got %q", m[1], m[2])
		}
		importer.Percentile(metrics, m[1], v)
	} else {
		return false, nil
	}
	return true, nil
}

// counts reads the request count, the rate and the error lines.
func (rep *report) counts(text string) error {
	run := rep.run
	if m := requestsRe.FindStringSubmatch(text); m != nil {
		n, err1 := strconv.ParseInt(m[1], 10, 64)
		d, err2 := time.ParseDuration(strings.TrimSpace(m[2]))
		if err1 != nil || err2 != nil {
			return fmt.Errorf("expected \"N requests in 30.00s, …\", got %q", text)
		}
		rep.sawCount = true
		run.Requests.Total, run.Window = n, d.Seconds()
	} else if m := rateRe.FindStringSubmatch(text); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil || v < 0 {
			return fmt.Errorf("Requests/sec: expected a number, got %q", m[1])
		}
		run.Metrics[result.RequestsPerSec], rep.sawRate = v, true
	} else if m := socketRe.FindStringSubmatch(text); m != nil {
		for _, s := range m[1:4] {
			n, _ := strconv.ParseInt(s, 10, 64)
			rep.connErrs += n
		}
		rep.timeouts, _ = strconv.ParseInt(m[4], 10, 64)
	} else if m := non2xxRe.FindStringSubmatch(text); m != nil {
		rep.bad, _ = strconv.ParseInt(m[1], 10, 64)
	}
	return nil
}

// Cut: wrk prints its error lines (Socket errors, Non-2xx) only when they
// are not 0, between the request count and Requests/sec; a report cut
// before Requests/sec may have lost them, so its failures are unknown. A
// cut in the Requests/sec line itself comes after them all, and a line
// after it (Transfer/sec, a closing fence in a README) holds no figure.
func (rep *report) Cut(partial string) bool {
	if rep.sawRate {
		return false
	}
	rep.sawRate = strings.HasPrefix(partial, "Requests/sec")
	return true
}

// finish turns the figures into a run. A failed request is a response
// outside 2xx/3xx or a timeout (wrk counts timed-out requests among its
// requests). Connect, read and write errors are listed as errors but not
// counted as failed requests: wrk does not count them as requests, and a
// read error often belongs to a response already counted as non-2xx. A
// report of 0 requests with socket errors is a run in which every attempt
// failed: 100 % errors and no latency.
func (rep *report) Finish(name string) (*result.Run, error) {
	run := rep.run
	if !rep.sawCount {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the report that starts here has no "N requests in D" line; expected a whole wrk or wrk2 report`}
	}
	if run.Requests.Total == 0 {
		return rep.failedRun(name)
	}
	if !rep.sawLatency {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: "the report that starts here has no Latency line; expected a whole wrk or wrk2 report"}
	}
	run.Requests.Failed = min(rep.bad+rep.timeouts, run.Requests.Total)
	run.Requests.Counted = result.CountRequests // wrk prints its error lines only when they are not 0
	// wrk always prints Requests/sec: without it the report is cut,
	// mid-line or not.
	if !rep.sawRate {
		run.Requests.Failed, run.Requests.Counted = 0, result.CountTotal
		run.Notes = append(run.Notes, "the report ends before its Requests/sec line: wrk's error lines, which come before it, may be missing, so failed requests are not counted")
	}
	importer.AddError(run, result.ErrStatus, rep.bad, "Non-2xx or 3xx responses")
	importer.AddError(run, result.ErrTimeout, rep.timeouts, "socket timeout")
	importer.AddError(run, result.ErrConnection, rep.connErrs, socketErrors)
	if rep.connErrs > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d wrk socket errors (connect/read/write) are listed as errors but not counted as failed requests", rep.connErrs))
	}
	switch {
	case !rep.wrk2:
		run.Notes = append(run.Notes, "wrk times each request from when it was sent, not from when it was due, so its latencies hide queueing under overload (coordinated omission); wrk2 corrects this")
	case rep.uncorrected:
		run.Notes = append(run.Notes, "wrk2 --u_latency: imported the recorded latencies (timed from when each request was due); the uncorrected table was ignored")
	}
	rep.spectrumP95()
	run.Summarize()
	return run, nil
}

// spectrumP95 takes wrk2's p95 from its spectrum, in the unit that makes
// the spectrum agree with the table (its mean with the Latency line's, or
// a percentile both have); without such agreement it is left out.
func (rep *report) spectrumP95() {
	v95, ok := rep.spectrum["0.950000"]
	if _, has := rep.run.Metrics[result.LatencyP95]; !ok || !rep.wrk2 || has {
		return
	}
	m := rep.run.Metrics
	pairs := [][2]float64{{rep.specMean, m[result.LatencyMean]}, {rep.spectrum["0.500000"], m[result.LatencyP50]},
		{rep.spectrum["0.900000"], m[result.LatencyP90]}, {rep.spectrum["0.990000"], m[result.LatencyP99]}}
	for _, p := range pairs {
		if p[0] <= 0 || p[1] <= 0 {
			continue
		}
		for _, scale := range []float64{1, 1e-3} { // milliseconds, microseconds
			if r := p[0] * scale / p[1]; r > 0.97 && r < 1.03 {
				m[result.LatencyP95] = v95 * scale
				return
			}
		}
	}
	rep.run.Notes = append(rep.run.Notes, "wrk2's p95 (its spectrum's 0.950000 row) left out: the spectrum's unit could not be told from the figures it shares with the table")
}

const socketErrors = "socket errors (connect, read, write)"

// failedRun is a report of 0 requests: a run whose every attempt failed
// when wrk saw socket errors, else nothing to judge.
func (rep *report) failedRun(name string) (*result.Run, error) {
	run := rep.run
	errs := rep.connErrs + rep.timeouts
	if errs == 0 {
		return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("the wrk report at line %d has 0 requests and no socket errors: nothing to judge", rep.line)}
	}
	importer.DropLatencies(run.Metrics, false) // wrk prints 0.00us for latencies it never measured
	run.Metrics[result.RequestErrorPct] = 100
	// wrk counted 0 requests; its attempts that failed are socket errors,
	// which it does not count as requests: no failed count.
	run.Requests.Counted = result.CountTotal
	importer.AddError(run, result.ErrConnection, rep.connErrs, socketErrors)
	importer.AddError(run, result.ErrTimeout, rep.timeouts, "socket timeout")
	run.Notes = append(run.Notes, fmt.Sprintf("no request completed: all %d of wrk's attempts ended in socket errors", errs))
	run.Summarize()
	return run, nil
}
