package locust

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// table is one CSV file: its header columns and its rows with line numbers.
type table struct {
	file string
	cols map[string]int
	rows []row
	// cutLine is the line of an incomplete last row that was dropped
	// because the file was cut; 0 when the file is whole.
	cutLine int
}

type row struct {
	line   int
	fields []string
	t      *table
}

// readTable parses a CSV file with a header. A malformed or short row is a
// SyntaxError, unless it is the last one and the file lacks its final
// newline: then the file was cut and the row is dropped.
func readTable(m member) (*table, error) {
	file, data := m.name, bytes.TrimPrefix(m.data, []byte("\ufeff"))
	// Python's csv module on Windows, writing to a text-mode file, ends
	// rows with \r\r\n; read those as ordinary \r\n rows.
	data = bytes.ReplaceAll(data, []byte("\r\r\n"), []byte("\r\n"))
	whole := len(data) == 0 || data[len(data)-1] == '\n'
	lastLine := 1 + bytes.Count(bytes.TrimRight(data, "\r\n"), []byte{'\n'})
	cutRow := 0
	if i := bytes.LastIndexByte(data, '\n'); !whole && i >= 0 && bytes.Contains(data, []byte("\r\n")) {
		// Python's csv module (Locust 1.x and later) ends every row with
		// \r\n, so a last row without it was cut, even where it parses
		// ("12.3" of "12.34"). Locust 0.x joined its rows with \n and
		// wrote no last one: there a row that does not parse is the cut.
		data, cutRow = data[:i+1], lastLine
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, &importer.SyntaxError{File: file, Line: 1, Msg: "expected a CSV header row"}
	}
	t := &table{file: file, cols: map[string]int{}}
	for i, h := range header {
		if _, dup := t.cols[norm(h)]; !dup {
			t.cols[norm(h)] = i
		}
	}
	t.cutLine = cutRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			if !whole && perr.StartLine == lastLine {
				t.cutLine = perr.StartLine
				return t, nil
			}
			return nil, &importer.SyntaxError{File: file, Line: perr.Line, Msg: fmt.Sprintf("%v; expected a CSV row", perr.Err)}
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && rec[0] == "" {
			continue
		}
		if len(rec) != len(header) {
			if !whole && line == lastLine {
				t.cutLine = line
				return t, nil
			}
			return nil, &importer.SyntaxError{File: file, Line: line,
				Msg: fmt.Sprintf("%d fields, expected %d as in the header", len(rec), len(header))}
		}
		t.rows = append(t.rows, row{line: line, fields: rec, t: t})
	}
}

// str is a column's text; "" when the table has no such column.
func (r row) str(names ...string) string {
	for _, n := range names {
		if i, ok := r.t.cols[n]; ok {
			return r.fields[i]
		}
	}
	return ""
}

// num is a column's number: ok is false when the column is missing or the
// cell is empty or "N/A"; a cell that is not a number is a SyntaxError.
func (r row) num(names ...string) (v float64, ok bool, err error) {
	for _, n := range names {
		i, has := r.t.cols[n]
		if !has {
			continue
		}
		s := strings.TrimSpace(r.fields[i])
		if s == "" || s == "N/A" {
			return 0, false, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, false, &importer.SyntaxError{File: r.t.file, Line: r.line,
				Msg: fmt.Sprintf("column %q: expected a non-negative number, got %q", n, s)}
		}
		return v, true, nil
	}
	return 0, false, nil
}

func (t *table) has(names ...string) bool {
	for _, n := range names {
		if _, ok := t.cols[n]; ok {
			return true
		}
	}
	return false
}
