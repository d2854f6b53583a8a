// Package hey owns the hey importers: the text summary (hey's figures, in
// seconds to four decimals) and -o csv's one row per response.
package hey

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(Text{}, CSV{}) }

// Text reads hey's text summary; a log may hold several, each a run.
type Text struct{}

// CSV reads `hey -o csv`: one row per response, times in seconds.
type CSV struct{}

func (Text) Name() string { return "hey-text" }
func (CSV) Name() string  { return "hey-csv" }

// Sniff: hey's summary blocks. oha prints the same block with a "Success
// rate:" line, which hey does not: that is oha's (internal/importer/oha).
func (Text) Sniff(_ string, head []byte) bool {
	return bytes.Contains(head, []byte("Summary:")) && bytes.Contains(head, []byte("Requests/sec:")) &&
		!bytes.Contains(head, []byte("Success rate:")) &&
		(bytes.Contains(head, []byte("Status code distribution:")) || bytes.Contains(head, []byte("Response time histogram:")))
}

const csvHeader = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset"

func (CSV) Sniff(_ string, head []byte) bool {
	return bytes.HasPrefix(bytes.TrimPrefix(head, []byte("\ufeff")), []byte(csvHeader))
}

var (
	fieldRe   = regexp.MustCompile(`^(Total|Slowest|Fastest|Average|Requests/sec):\s+(\S+)(?:\s+secs)?$`)
	percentRe = regexp.MustCompile(`^(\d+)%{1,2} in (\S+) secs$`)
)

var (
	timeKeys = map[string]string{"Slowest": result.LatencyMax, "Average": result.LatencyMean}
	// transport classes hey's error lines (Go's net/http errors).
	transport = importer.MessageClasses{
		Timeout:    []string{"timeout", "deadline exceeded"},
		Connection: []string{"dial", "connection", "eof", "broken pipe", "reset", "refused"},
	}
)

type report struct {
	line    int
	run     *result.Run
	sawTime bool
	importer.Sections
}

func (t Text) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "hey")(t.ImportAll(name, r))
}

func (Text) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	starts := func(line string) bool { return line == "Summary:" }
	return importer.TextReport{Starts: starts}.ReadReports(name, `no "Summary:" line; expected a hey report`, r,
		func(line int, run *result.Run) importer.Report { return &report{line: line, run: run} })
}

func (rep *report) Take(text string) error {
	run := rep.run
	if ok, err := rep.Sections.Take(text); ok {
		return err
	}
	switch rep.Section {
	case "Summary:":
		if strings.HasPrefix(text, "Success rate:") {
			return errors.New(`a "Success rate:" line, which hey does not print: this is oha's summary (--format oha-text)`)
		}
		m := fieldRe.FindStringSubmatch(text)
		if m == nil {
			return nil
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil || v < 0 || v > 1e9 {
			return fmt.Errorf("%s: expected a number, got %q", m[1], m[2])
		}
		if math.IsNaN(v) {
			return nil // hey prints NaN for latencies it never measured
		}
		switch m[1] {
		case "Total":
			run.Window, rep.sawTime = v, true
		case "Requests/sec":
			run.Metrics[result.RequestsPerSec] = v
		default:
			if key, ok := timeKeys[m[1]]; ok {
				run.Metrics[key] = 1000 * v
			}
		}
	case "Latency distribution:":
		if m := percentRe.FindStringSubmatch(text); m != nil {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil || !(v >= 0) || v > 1e9 {
				return fmt.Errorf("latency %s%%: expected seconds, got %q", m[1], m[2])
			}
			// hey 0.1.5 prints "0%% in 0.0000 secs" for a percentile it lacks.
			importer.Percentile(run.Metrics, m[1], 1000*v)
		}
	}
	return nil
}

func (rep *report) Finish(name string) (*result.Run, error) {
	run := rep.run
	if !rep.sawTime {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the summary that starts here has no "Total:" line; expected a whole hey report`}
	}
	// hey counts requests only in the distributions that close its report:
	// a cut one's may lack statuses or errors (0 % errors for 6.5 %).
	if rep.CutIn {
		run.Notes = append(run.Notes, "the report is cut in or before its status code and error distributions: requests, failures and errors are not counted")
	} else if rep.Fill(run, transport, nil); run.Requests.Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("the hey report at line %d lists no responses and no errors: nothing to judge", rep.line)}
	}
	if rep.CutIn || run.Requests.Failed == run.Requests.Total {
		importer.DropLatencies(run.Metrics, true) // the 0s hey prints when it timed nothing
	}
	run.Summarize()
	return run, nil
}

const csvFields = 8

func (CSV) Import(name string, r io.Reader) (*result.Run, error) {
	lines := importer.NewLineReader(r)
	if err := lines.Header(name, csvHeader, "expected hey -o csv's header "+csvHeader); err != nil {
		return nil, err
	}
	b := rawrun.New(rawrun.Options{What: "requests"})
	first, last := math.Inf(1), math.Inf(-1)
	var row [][]byte
	var codes importer.Interner
	notes, err := lines.Rows(name, false, func(line []byte) (err error) {
		if row, err = importer.SplitCSV(row, line, ','); err != nil {
			return fmt.Errorf("%v; expected hey -o csv's numbers", err)
		}
		if len(row) != csvFields {
			return fmt.Errorf("%d fields, expected %d as in hey -o csv's header", len(row), csvFields)
		}
		rt, err1 := strconv.ParseFloat(string(row[0]), 64)
		code, err2 := strconv.Atoi(string(row[6]))
		off, err3 := strconv.ParseFloat(string(row[7]), 64)
		if err1 != nil || err2 != nil || err3 != nil || !(rt >= 0) || rt > 1e7 || !(off >= 0) || off > 1e9 {
			return fmt.Errorf("expected response-time and offset in seconds and a status code, got %q, %q, %q", row[0], row[7], row[6])
		}
		first, last = min(first, off), max(last, off+rt)
		st := b.Request("(unnamed)", time.Duration(rt*float64(time.Second)))
		if code < 200 || code >= 400 {
			status := codes.String(row[6])
			b.Fail(st, result.ErrStatus, status, "status "+status)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if b.Requests().Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "hey -o csv of 0 responses: it lists responses only, so a run whose every request failed leaves only its header; import hey's text summary of the run, which counts the errors"}
	}
	run := b.Run("hey -o csv lists responses only: requests that got no response (hey's error distribution) are not in the file")
	run.Notes = append(run.Notes, notes...)
	run.Window = last - first
	run.Summarize()
	return run, nil
}
