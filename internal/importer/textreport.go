package importer

import (
	"bufio"
	"fmt"
	"io"
	"strings"
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
