// Package ab owns the ApacheBench (ab) importers: the text report, which
// carries ab's summary figures (whole milliseconds), the -e CSV of
// percentiles, and the -g gnuplot TSV of one row per request, from which
// it builds a latency histogram.
package ab

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() {
	importer.Register(Text{})
	importer.Register(Percentiles{})
	importer.Register(Gnuplot{})
}

// Text reads ab's text reports; a log may hold several (a sweep), each a
// run. Lines around them (the command, progress lines, notes) are ignored.
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
	if strings.Contains(s, "This is ApacheBench") {
		return true
	}
	return strings.Contains(s, "Complete requests:") && strings.Contains(s, "Time taken for tests:") &&
		strings.Contains(s, "Requests per second:")
}

// percentileKeys maps ab's "served within" table to metrics.
var percentileKeys = map[int]string{50: result.LatencyP50, 90: result.LatencyP90, 95: result.LatencyP95, 99: result.LatencyP99, 100: result.LatencyMax}

// report collects one report's figures.
type report struct {
	line                                 int
	run                                  *result.Run
	sawCount, sawTime                    bool
	connect, receive, length, exceptions int64
	non2xx, writeErrs                    int64
	// sawTotal and sawPercent/sawLongest tell a whole report from a cut
	// one: ab always ends with the Connection Times table's Total row and,
	// when it prints the percentile table, that table's 100 % row.
	sawTotal, sawPercent, sawLongest bool
}

func (Text) Import(name string, r io.Reader) (*result.Run, error) {
	runs, err := Text{}.ImportAll(name, r)
	return importer.One(name, "ab", runs, err)
}

// ImportAll reads every report of the file, in order. A report opens with
// its "Server Software:" line, which ab always prints.
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
	}.ReadReports(name, `no "Server Software:" line; expected an ab report`, r, func(line int) importer.Report {
		return &report{line: line, run: &result.Run{Metrics: map[string]float64{}}}
	})
	if err != nil && aborted != "" {
		return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("ab stopped before its report (%s): nothing was measured", aborted)}
	}
	return runs, err
}

// commentRe is a shell-style comment that people add to a saved report:
// a whole line from "#", or "#" after a space to the end of a line. ab
// itself writes no "#" (a document path is sent without its fragment).
var commentRe = regexp.MustCompile(`(^|\s)#.*$`)

// uncomment is a report line without its comment.
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
	value := strings.TrimSpace(m[2])
	num := func() (float64, error) {
		v, err := strconv.ParseFloat(leadRe.FindString(value), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: expected a number, got %q", m[1], importer.Clip(value, 40))
		}
		return v, nil
	}
	var err error
	var v float64
	switch m[1] {
	case "Time taken for tests":
		v, err = num()
		run.Window, rep.sawTime = v, true
	case "Complete requests":
		v, err = num()
		run.Requests.Total, rep.sawCount = int64(v), true
	case "Non-2xx responses":
		v, err = num()
		rep.non2xx = int64(v)
	case "Write errors":
		v, err = num()
		rep.writeErrs = int64(v)
	case "Requests per second":
		v, err = num()
		run.Metrics[result.RequestsPerSec] = v
	}
	return err
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
	if rep.non2xx > 0 {
		run.Errors = append(run.Errors, result.ErrorClass{Class: result.ErrStatus, Count: rep.non2xx, Sample: "Non-2xx responses"})
	}
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
