// Package locust owns the Locust importer. Given any file of the family
// --csv writes (PREFIX_stats.csv, _stats_history.csv, _failures.csv,
// _exceptions.csv; before 0.13 _requests.csv and _distribution.csv), it
// reads the family: counts and figures, time span, error classes.
package locust

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(CSV{}) }

// CSV reads one Locust --csv family.
type CSV struct{}

func (CSV) Name() string { return "locust-csv" }

type kind int

const (
	unknown      kind = iota
	stats             // _stats.csv (0.13+) or _requests.csv (0.x)
	distribution      // _distribution.csv (0.x percentiles)
	history           // _stats_history.csv
	failures          // _failures.csv
	exceptions        // _exceptions.csv
)

var suffixes = []struct {
	suffix string
	kind   kind
}{
	{"_stats_history.csv", history}, {"_stats.csv", stats}, {"_requests.csv", stats},
	{"_distribution.csv", distribution}, {"_failures.csv", failures}, {"_exceptions.csv", exceptions},
}

// classify tells a family member from its header row.
func classify(header []string) kind {
	has := map[string]bool{}
	for _, h := range header {
		has[norm(h)] = true
	}
	switch {
	case has["timestamp"] && has["user count"]:
		return history
	case has["name"] && (has["request count"] || has["# requests"]) && (has["type"] || has["method"]):
		return stats
	case has["name"] && has["# requests"] && has["50%"]:
		return distribution
	case has["method"] && has["name"] && has["error"] && has["occurrences"]:
		return failures
	case has["count"] && has["message"] && has["traceback"]:
		return exceptions
	}
	return unknown
}

func norm(h string) string { return strings.ToLower(strings.TrimSpace(h)) }

func headerOf(head []byte) []string {
	cr := csv.NewReader(strings.NewReader(importer.FirstLine(head)))
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if err != nil {
		return nil
	}
	return rec
}

func (CSV) Sniff(_ string, head []byte) bool { return classify(headerOf(head)) != unknown }

// member is one sibling file that exists: its name and contents.
type member struct {
	name string
	data []byte
}

type family struct{ stats, dist, history, failures member }

func (CSV) Import(name string, r io.Reader) (*result.Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	k := classify(headerOf(data))
	if k == unknown {
		return nil, &importer.SyntaxError{File: name, Line: 1,
			Msg: "expected the header of a Locust --csv file (Type,Name,Request Count,… or Timestamp,User Count,… or Method,Name,Error,Occurrences)"}
	}
	fam, err := loadFamily(name, k, data)
	if err != nil {
		return nil, err
	}
	return fam.run()
}

func loadFamily(name string, k kind, data []byte) (*family, error) {
	base, _ := splitSuffix(name)
	fam := &family{}
	if m := map[kind]*member{stats: &fam.stats, distribution: &fam.dist, history: &fam.history, failures: &fam.failures}[k]; m != nil {
		*m = member{name, data}
	}
	var err error
	if fam.stats.data == nil {
		if base == "" {
			return nil, &importer.Unsupported{File: name, Reason: "a Locust CSV that is not a _stats.csv file, and its name does not show where its _stats.csv sibling is"}
		}
		candidates := []string{base + "_stats.csv", base + "_requests.csv"}
		if k == distribution {
			candidates = candidates[1:]
		}
		if fam.stats, err = readFirst(candidates...); err != nil {
			return nil, err
		}
		if fam.stats.data == nil {
			return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("Locust CSV without its stats sibling (looked for %s)", strings.Join(candidates, " and "))}
		}
	}
	if base == "" {
		return fam, nil
	}
	for _, s := range []struct {
		m    *member
		path string
		want bool
	}{
		{&fam.history, base + "_stats_history.csv", true},
		{&fam.failures, base + "_failures.csv", true},
		{&fam.dist, base + "_distribution.csv", strings.HasSuffix(fam.stats.name, "_requests.csv")},
	} {
		if s.want && s.m.data == nil {
			if *s.m, err = readFirst(s.path); err != nil {
				return nil, err
			}
		}
	}
	return fam, nil
}

func splitSuffix(name string) (base string, k kind) {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s.suffix) {
			return strings.TrimSuffix(name, s.suffix), s.kind
		}
	}
	return "", unknown
}

// readFirst reads the first of the paths that exists; none is no error.
func readFirst(paths ...string) (member, error) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return member{}, fmt.Errorf("reading Locust sibling file: %w", err)
		}
		return member{p, b}, nil
	}
	return member{}, nil
}

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
// A member that does not exist is no table, and no error.
func readTable(m member) (*table, error) {
	if m.data == nil {
		return nil, nil
	}
	file, data := m.name, bytes.TrimPrefix(m.data, []byte("\ufeff"))
	t := &table{file: file, cols: map[string]int{}}
	// Python's csv module on Windows, writing to a text-mode file, ends
	// rows with \r\r\n; read those as ordinary \r\n rows.
	data = bytes.ReplaceAll(data, []byte("\r\r\n"), []byte("\r\n"))
	whole := len(data) == 0 || data[len(data)-1] == '\n'
	lastLine := 1 + bytes.Count(bytes.TrimRight(data, "\r\n"), []byte{'\n'})
	if i := bytes.LastIndexByte(data, '\n'); !whole && i >= 0 && bytes.Contains(data, []byte("\r\n")) {
		// Python's csv module (Locust 1.x and later) ends every row with
		// \r\n, so a last row without it was cut, even where it parses
		// ("12.3" of "12.34"). Locust 0.x joined its rows with \n and
		// wrote no last one: there a row that does not parse is the cut.
		data, t.cutLine = data[:i+1], lastLine
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, &importer.SyntaxError{File: file, Line: 1, Msg: "expected a CSV header row"}
	}
	for i, h := range header {
		if _, dup := t.cols[norm(h)]; !dup {
			t.cols[norm(h)] = i
		}
	}
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
