package importer

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// TextReport reads a tool's text output (vegeta report, wrk, ab) line by
// line, each line trimmed. A file may hold several reports one after
// another (a log of a sweep), each opened by a line Starts accepts; lines
// before the first report (a shell prompt, the command) are skipped.
type TextReport struct {
	// Starts reports whether a line opens a report.
	Starts func(line string) bool
	// Begin starts a new report at its first line, numbered from 1.
	Begin func(line int)
	// Take reads a line of the current report, its first line included.
	Take func(line string) error
	// Before, when set, sees the lines before the first report (where a
	// tool that gave up says why).
	Before func(line string)
}

// Read reads the reports in file name from r; a line Take fails on is a
// *SyntaxError at that line. It returns the number of reports begun.
func (t TextReport) Read(name string, r io.Reader) (reports int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if t.Starts(text) {
			reports++
			t.Begin(line)
		}
		if reports == 0 {
			if t.Before != nil {
				t.Before(text)
			}
			continue
		}
		if err := t.Take(text); err != nil {
			return reports, &SyntaxError{File: name, Line: line, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return reports, &SyntaxError{File: name, Msg: fmt.Sprintf("reading: %v; expected a text report", err)}
	}
	return reports, nil
}

// Report is the state of one text report while its lines are read.
type Report interface {
	// Take reads one line of the report.
	Take(line string) error
	// Finish turns the report into a run, or says why it holds none.
	Finish(file string) (*result.Run, error)
}

// ReadReports reads every report of a text file, each into the state
// begin makes at its first line, and returns their runs in file order; a
// file without a report is a *SyntaxError that says what was expected.
func (t TextReport) ReadReports(name, expected string, r io.Reader, begin func(line int) Report) ([]*result.Run, error) {
	var reps []Report
	t.Begin = func(line int) { reps = append(reps, begin(line)) }
	t.Take = func(line string) error { return reps[len(reps)-1].Take(line) }
	if _, err := t.Read(name, r); err != nil {
		return nil, err
	}
	if len(reps) == 0 {
		return nil, &SyntaxError{File: name, Msg: expected}
	}
	runs := make([]*result.Run, 0, len(reps))
	for _, rep := range reps {
		run, err := rep.Finish(name)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return runs, nil
}
