package importer

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// TextReport reads a tool's text report (the output of vegeta report or
// wrk) line by line, each line trimmed, and holds a file to one report.
type TextReport struct {
	// Tool names the tool in messages, e.g. "wrk".
	Tool string
	// Starts reports whether a line opens a report.
	Starts func(line string) bool
	// Take reads a line's figures, if it has any.
	Take func(line string) error
}

// Read reads the report in file name from r. A second report is
// *Unsupported, and a line Take fails on a *SyntaxError at that line. It
// returns the number of reports begun: 0 or 1.
func (t TextReport) Read(name string, r io.Reader) (reports int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if t.Starts(text) {
			if reports++; reports > 1 {
				return reports, &Unsupported{File: name, Reason: fmt.Sprintf(
					"several %s reports in one file (the second starts at line %d); import each report from its own file", t.Tool, line)}
			}
		}
		if err := t.Take(text); err != nil {
			return reports, &SyntaxError{File: name, Line: line, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return reports, fmt.Errorf("reading %s: %w", name, err)
	}
	return reports, nil
}
