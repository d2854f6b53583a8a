package ab

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

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

func firstLine(head []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimPrefix(head, []byte("\ufeff")), []byte{'\n'})
	return strings.TrimRight(string(line), "\r")
}

func (Percentiles) Sniff(_ string, head []byte) bool { return firstLine(head) == percentilesHeader }
func (Gnuplot) Sniff(_ string, head []byte) bool     { return firstLine(head) == gnuplotHeader }

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
		if err != nil {
			return nil, csvError(name, err)
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

// gnuplotFields is the number of fields of ab -g's rows.
const gnuplotFields = 6

// Import reads ab's rows split at their tabs (the date in the first field
// holds spaces, never a tab); a row cut by the end of the file is left out
// and noted.
func (Gnuplot) Import(name string, r io.Reader) (*result.Run, error) {
	lines := importer.NewLineReader(r)
	if !lines.Row() || strings.TrimPrefix(string(lines.Bytes()), "\ufeff") != gnuplotHeader {
		if err := lines.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, &importer.SyntaxError{File: name, Line: 1, Msg: "expected ab -g's header starttime, seconds, ctime, dtime, ttime, wait"}
	}
	b := rawrun.New(rawrun.Options{What: "requests"})
	var span rawrun.Span
	var row [][]byte
	for lines.Row() {
		if len(lines.Bytes()) == 0 {
			continue
		}
		line := lines.Line()
		row = splitTabs(row, lines.Bytes())
		if len(row) != gnuplotFields {
			return nil, &importer.SyntaxError{File: name, Line: line, Msg: fmt.Sprintf("%d fields, expected %d as in ab -g's header", len(row), gnuplotFields)}
		}
		sec, err1 := strconv.ParseInt(string(row[1]), 10, 64)
		ms, err2 := strconv.ParseInt(string(row[4]), 10, 64)
		if err1 != nil || err2 != nil || ms < 0 || ms > maxMillis {
			return nil, &importer.SyntaxError{File: name, Line: line, Msg: fmt.Sprintf("expected Unix seconds and a total time in ms, got %q and %q", row[1], row[4])}
		}
		at := time.Unix(sec, 0)
		if err := importer.CheckTime(at); err != nil {
			return nil, &importer.SyntaxError{File: name, Line: line, Msg: err.Error()}
		}
		span.Add(at, at)
		b.Request("(unnamed)", time.Duration(ms)*time.Millisecond)
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if b.Requests().Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "ab -g file of 0 requests"}
	}
	run := b.Run("ab -g holds no status per request: no error rate",
		"ab -g times requests in whole milliseconds and their starts in whole seconds")
	run.Started = span.First.UTC()
	run.Requests.Counted = result.CountTotal // failures unknown, not zero
	if cut := lines.Cut(); cut > 0 {
		run.Notes = append(run.Notes, importer.CutNote(cut))
	}
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

// maxMillis bounds a request's time, far above any real one.
const maxMillis = 366 * 24 * 3600 * 1000

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &importer.SyntaxError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &importer.SyntaxError{File: name, Msg: err.Error()}
}

// splitTabs splits an ab -g row at its tabs into dst, in place: ab writes
// no quotes, and its date holds spaces only.
func splitTabs(dst [][]byte, line []byte) [][]byte {
	dst = dst[:0]
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			return append(dst, line)
		}
		dst, line = append(dst, line[:i]), line[i+1:]
	}
}
