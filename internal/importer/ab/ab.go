// Package ab owns the ApacheBench (ab) importers: the text report (ab's
// figures, in whole milliseconds), the -e CSV of percentiles, and the -g
// TSV of one row per request.
package ab

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(Text{}, Percentiles{}, Gnuplot{}) }

// Text reads ab's text reports; a log may hold several (a sweep).
type Text struct{}

func (Text) Name() string { return "ab-text" }

var (
	fieldRe   = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 -]*?):\s+(.*)$`)
	percentRe = regexp.MustCompile(`^(\d+)%\s+(\d+)(?:\s+\(longest request\))?$`)
	failedRe  = regexp.MustCompile(`^\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)$`)
	totalRe   = regexp.MustCompile(`^Total:\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)$`)
	leadRe    = regexp.MustCompile(`^\d+(?:\.\d+)?`)
)

// Sniff: ab's banner, or the three lines every ab report has.
func (Text) Sniff(_ string, head []byte) bool {
	s := string(head)
	return strings.Contains(s, "This is ApacheBench") || strings.Contains(s, "Complete requests:") &&
		strings.Contains(s, "Time taken for tests:") && strings.Contains(s, "Requests per second:")
}

var percentileKeys = map[int]string{50: result.LatencyP50, 90: result.LatencyP90, 95: result.LatencyP95, 99: result.LatencyP99, 100: result.LatencyMax}

type report struct {
	line                                                    int
	run                                                     *result.Run
	sawCount, sawTime                                       bool
	connect, receive, length, exceptions, non2xx, writeErrs int64
	// sawTotal and sawPercent/sawLongest tell a whole report from a cut
	// one: ab always ends with the Connection Times table's Total row and,
	// when it prints the percentile table, that table's 100 % row.
	sawTotal, sawPercent, sawLongest bool
}

func (t Text) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "ab")(t.ImportAll(name, r))
}

// ImportAll reads every report, each opened by "Server Software:".
func (Text) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	var aborted string
	runs, err := importer.TextReport{
		Starts: func(line string) bool { return strings.HasPrefix(uncomment(line), "Server Software:") },
		// ab's last line, its percentile table's 100 % row, ends with a
		// word: one saved without its line break is still whole.
		Whole: func(line string) bool { return strings.HasSuffix(uncomment(line), "(longest request)") },
		Before: func(text string) {
			// ab gives up with a line such as "apr_socket_recv: Connection refused (111)".
			if i := strings.Index(text, "apr_"); i >= 0 && aborted == "" {
				aborted = importer.OneLine(text[i:])
			}
		},
	}.ReadReports(name, `no "Server Software:" line; expected an ab report`, r, func(line int, run *result.Run) importer.Report { return &report{line: line, run: run} })
	if err != nil && aborted != "" {
		return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("ab stopped before its report (%s): nothing was measured", aborted)}
	}
	return runs, err
}

// commentRe is a shell-style comment that people add to a saved report:
// a whole line from "#", or "#" after a space to the end of a line. ab
// itself writes no "#" (a document path is sent without its fragment).
var commentRe = regexp.MustCompile(`(^|\s)#.*$`)

func uncomment(text string) string {
	return strings.TrimSpace(commentRe.ReplaceAllString(text, ""))
}

func (rep *report) Take(text string) error {
	text = uncomment(text)
	run := rep.run
	if m := percentRe.FindStringSubmatch(text); m != nil {
		p, _ := strconv.Atoi(m[1])
		v, _ := strconv.ParseFloat(m[2], 64)
		rep.sawPercent, rep.sawLongest = true, rep.sawLongest || p == 100
		if key, ok := percentileKeys[p]; ok {
			run.Metrics[key] = v
		}
		return nil
	}
	if m := failedRe.FindStringSubmatch(text); m != nil {
		rep.connect, rep.receive, rep.length, rep.exceptions = atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4])
		return nil
	}
	if strings.HasPrefix(text, "Total:") {
		rep.sawTotal = true // with -S the row has no median or sd
	}
	if m := totalRe.FindStringSubmatch(text); m != nil {
		run.Metrics[result.LatencyMean], _ = strconv.ParseFloat(m[2], 64)
		return nil
	}
	m := fieldRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	set := numberFields[m[1]]
	value := strings.TrimSpace(m[2])
	v, err := strconv.ParseFloat(leadRe.FindString(value), 64)
	if set != nil && err != nil {
		return fmt.Errorf("%s: expected a number, got %q", m[1], importer.Clip(value, 40))
	} else if set != nil {
		set(rep, v)
	}
	return nil
}

// numberFields are the "Field: value" lines read, each into its figure.
var numberFields = map[string]func(rep *report, v float64){
	"Time taken for tests": func(rep *report, v float64) { rep.run.Window, rep.sawTime = v, true },
	"Complete requests":    func(rep *report, v float64) { rep.run.Requests.Total, rep.sawCount = int64(v), true },
	"Non-2xx responses":    func(rep *report, v float64) { rep.non2xx = int64(v) },
	"Write errors":         func(rep *report, v float64) { rep.writeErrs = int64(v) },
	"Requests per second":  func(rep *report, v float64) { rep.run.Metrics[result.RequestsPerSec] = v },
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// Cut needs to drop nothing: Finish refuses a report that ends before the
// rows ab always prints last, so a cut one is refused unless only lines
// after them are missing; a line after the 100 % row is not the report's.
func (rep *report) Cut(string) bool { return !rep.sawLongest }

// finish turns the figures into a run. A failed request is a response
// outside 2xx (ab's Non-2xx count) or one that ab could not connect,
// receive or complete; a length mismatch, which ab counts as failed, is
// not a failure here: the body of a dynamic page may vary.
func (rep *report) Finish(name string) (*result.Run, error) {
	run := rep.run
	if !rep.sawCount || !rep.sawTime {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the report that starts here lacks "Complete requests:" or "Time taken for tests:"; expected a whole ab report`}
	}
	if run.Requests.Total <= 0 {
		return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("the ab report at line %d has 0 requests: nothing to judge", rep.line)}
	}
	if !rep.sawTotal || (rep.sawPercent && !rep.sawLongest) {
		// A cut report may lack its failure counts: importing it would
		// understate the errors.
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the report that starts here ends before its "Total:" row or its 100 % row: the file is cut; expected a whole ab report`}
	}
	transport := rep.connect + rep.receive + rep.exceptions + rep.writeErrs
	run.Requests.Failed = min(rep.non2xx+transport, run.Requests.Total)
	run.Requests.Counted = result.CountRequests
	importer.AddError(run, result.ErrStatus, rep.non2xx, "Non-2xx responses")
	if transport > 0 {
		// ab may count one request's failure twice (a receive error and
		// an exception): the class holds no more than the failed requests.
		n := min(transport, run.Requests.Failed-min(rep.non2xx, run.Requests.Failed))
		run.Errors = append(run.Errors, result.ErrorClass{Class: result.ErrConnection, Count: n, Sample: "connect, receive, write or exception errors"})
		if n < transport {
			run.Notes = append(run.Notes, fmt.Sprintf("ab counted %d connect, receive, write or exception errors for %d failed requests", transport, n))
		}
	}
	if rep.length > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("ab counted %d responses of another length than the first as failed; they are not counted as failed here", rep.length))
	}
	run.Notes = append(run.Notes, "ab reports latencies in whole milliseconds")
	run.Summarize()
	return run, nil
}

// Percentiles reads `ab -e FILE`: the time within which each percentage
// of the requests was served, 0 to 100, in milliseconds. It holds nothing
// else: no request count, errors or rate.
type Percentiles struct{}

// Gnuplot reads `ab -g FILE`: one tab-separated row per request with its
// start (a date and Unix seconds) and its connect, processing, total and
// waiting times in whole milliseconds. It holds no status: whether a
// request failed is unknown.
type Gnuplot struct{}

func (Percentiles) Name() string { return "ab-csv" }
func (Gnuplot) Name() string     { return "ab-gnuplot" }

const (
	percentilesHeader = "Percentage served,Time in ms"
	gnuplotHeader     = "starttime\tseconds\tctime\tdtime\tttime\twait"
)

func (Percentiles) Sniff(_ string, head []byte) bool {
	return importer.FirstLine(head) == percentilesHeader
}
func (Gnuplot) Sniff(_ string, head []byte) bool { return importer.FirstLine(head) == gnuplotHeader }

func (Percentiles) Import(name string, r io.Reader) (*result.Run, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	head, err := cr.Read()
	if err != nil || strings.Join(head, ",") != percentilesHeader {
		return nil, &importer.SyntaxError{File: name, Line: 1, Msg: "expected ab -e's header " + percentilesHeader}
	}
	run := &result.Run{Metrics: map[string]float64{}}
	seen := map[int]bool{}
	var rows []served
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
			return nil, &importer.SyntaxError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
		} else if err != nil {
			return nil, &importer.SyntaxError{File: name, Msg: err.Error()}
		}
		line, _ := cr.FieldPos(0)
		p, err1 := strconv.Atoi(row[0])
		ms, err2 := strconv.ParseFloat(row[1], 64)
		if err1 != nil || err2 != nil || p < 0 || p > 100 || !(ms >= 0) || ms > 1e10 {
			return nil, &importer.SyntaxError{File: name, Line: line, Msg: fmt.Sprintf("expected a percentage 0–100 and a time in ms, got %q", strings.Join(row, ","))}
		}
		seen[p] = true
		rows = append(rows, served{p, ms})
		if key, ok := percentileKeys[p]; ok {
			run.Metrics[key] = ms
		}
	}
	if !seen[50] || !seen[100] {
		return nil, &importer.SyntaxError{File: name, Msg: "the table lacks the 50 % or 100 % row; expected ab -e's 0–100 table"}
	}
	if err := checkPercentiles(name, rows); err != nil {
		return nil, err
	}
	run.Notes = append(run.Notes, "ab -e holds percentiles only: no request count, errors or rate")
	return run, nil
}

// served is one row of ab -e's table.
type served struct {
	pct int
	ms  float64
}

// checkPercentiles refuses a table whose times fall: ab 2.3 reads past the
// end of its samples for the top rows when a run has 50 requests or fewer
// (the row of p % is sample ⌊0.5 + n·p/100⌋ of n), so those rows hold
// whatever memory follows. Such a table cannot be told from a true one
// row by row, only by its times not rising.
func checkPercentiles(name string, rows []served) error {
	for i := 1; i < len(rows); i++ {
		if rows[i].ms < rows[i-1].ms {
			return &importer.Unsupported{File: name, Reason: fmt.Sprintf(
				"ab -e's times fall from %g ms to %g ms at %d %%: ab writes garbage in the top rows of runs of 50 requests or fewer; import ab's text report or -g file of the run instead",
				rows[i-1].ms, rows[i].ms, rows[i].pct)}
		}
	}
	return nil
}

const gnuplotFields = 6

// Import reads ab's rows split at their tabs (the date in the first field
// holds spaces, never a tab); a row cut by the end of the file is left out
// and noted.
func (Gnuplot) Import(name string, r io.Reader) (*result.Run, error) {
	lines := importer.NewLineReader(r)
	if err := lines.Header(name, gnuplotHeader, "expected ab -g's header starttime, seconds, ctime, dtime, ttime, wait"); err != nil {
		return nil, err
	}
	b := rawrun.New(rawrun.Options{What: "requests"})
	var span rawrun.Span
	var row [][]byte
	notes, err := lines.Rows(name, false, func(line []byte) error {
		if row = importer.Split(row, line, '\t'); len(row) != gnuplotFields {
			return fmt.Errorf("%d fields, expected %d as in ab -g's header", len(row), gnuplotFields)
		}
		sec, err1 := strconv.ParseInt(string(row[1]), 10, 64)
		ms, err2 := strconv.ParseInt(string(row[4]), 10, 64)
		if err1 != nil || err2 != nil || ms < 0 || ms > importer.MaxMillis {
			return fmt.Errorf("expected Unix seconds and a total time in ms, got %q and %q", row[1], row[4])
		}
		at := time.Unix(sec, 0)
		span.Add(at, at)
		b.Request("(unnamed)", time.Duration(ms)*time.Millisecond)
		return importer.CheckTime(at)
	})
	if err != nil {
		return nil, err
	}
	if b.Requests().Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "ab -g file of 0 requests"}
	}
	run := b.Run("ab -g holds no status per request: no error rate",
		"ab -g times requests in whole milliseconds and their starts in whole seconds")
	run.Started = span.First.UTC()
	run.Requests.Counted = result.CountTotal // failures unknown, not zero
	run.Notes = append(run.Notes, notes...)
	// Starts in whole seconds put the window within about a second of
	// the truth: a rate from a short span would be off by up to 2×.
	if span.Seconds() >= minGnuplotWindow {
		run.Window = span.Seconds()
	} else {
		run.Notes = append(run.Notes, fmt.Sprintf("the requests start within %g s (whole seconds): too short a span to give a window or a rate", span.Seconds()))
	}
	run.Summarize()
	if run.Window == 0 {
		delete(run.Metrics, result.RequestsPerSec)
	}
	return run, nil
}

// minGnuplotWindow is the shortest span of whole-second starts taken as
// the window: the rate from it is then within about 5 % of the truth.
const minGnuplotWindow = 20
