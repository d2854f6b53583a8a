package k6

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// CSV reads `k6 run --out csv`: a header naming metric_name, timestamp,
// metric_value and the tag columns, then one sample per line.
type CSV struct{}

func (CSV) Name() string { return "k6-csv" }

const csvHeaderStart = "metric_name,timestamp,metric_value"

func (CSV) Sniff(_ string, head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(head, "\ufeff"), []byte(csvHeaderStart))
}

func (CSV) Import(name string, r io.Reader) (*result.Run, error) {
	lines := importer.NewLineReader(r)
	if !lines.Scan() {
		if err := lines.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, &importer.SyntaxError{File: name, Line: 1, Msg: "empty file; expected a k6 CSV header starting " + csvHeaderStart}
	}
	cols, err := parseCSVLine(bytes.TrimPrefix(lines.Bytes(), []byte("\ufeff")))
	if err != nil || !strings.HasPrefix(strings.Join(cols, ","), csvHeaderStart) {
		return nil, &importer.SyntaxError{File: name, Line: 1, Msg: "expected a k6 CSV header starting " + csvHeaderStart}
	}
	index := map[string]int{}
	for i, c := range cols {
		index[c] = i
	}
	agg := newAggregator()
	agg.perSecond = map[int64]int64{}
	var notes []string
	coarse := true
	row := &csvRow{index: index, cols: len(cols)}
	for lines.Row() {
		if len(lines.Bytes()) == 0 {
			continue
		}
		p, whole, err := row.point(lines.Bytes())
		if err != nil {
			return nil, &importer.SyntaxError{File: name, Line: lines.Line(), Msg: err.Error()}
		}
		coarse = coarse && whole
		agg.add(p)
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cut := lines.Cut(); cut > 0 {
		notes = append(notes, importer.CutNote(cut))
	}
	if !coarse {
		agg.perSecond = nil // the timestamps tell the window as they are
	}
	run, err := agg.run(name)
	if err != nil {
		return nil, err
	}
	if coarse {
		run.Notes = append(run.Notes, "timestamps have 1 s resolution: the window is estimated from the requests in the first and last second against the whole seconds between")
	}
	run.Notes = append(run.Notes, notes...)
	return run, nil
}

// csvRow reads sample lines: one row's fields at a time, in place, with
// the strings the aggregator keeps interned.
type csvRow struct {
	index  map[string]int
	cols   int
	fields [][]byte
	strs   importer.Interner
	tagFn  func(string) string
}

// point parses one sample line; whole says the timestamp was in whole
// seconds. The point's tags are valid until the next line.
func (r *csvRow) point(b []byte) (point, bool, error) {
	var err error
	if r.fields, err = importer.SplitCSV(r.fields, b, ','); err != nil {
		return point{}, false, fmt.Errorf("%v; expected a k6 CSV sample line", err)
	}
	f := r.fields
	if len(f) != r.cols {
		return point{}, false, fmt.Errorf("%d fields, expected %d as in the header", len(f), r.cols)
	}
	ts, whole, err := parseTimestamp(string(f[1]))
	if err == nil {
		err = importer.CheckTime(ts)
	}
	if err != nil {
		return point{}, false, fmt.Errorf("timestamp %q: expected Unix time or RFC 3339", f[1])
	}
	v, err := strconv.ParseFloat(string(f[2]), 64)
	if err != nil {
		return point{}, false, fmt.Errorf("metric_value %q: expected a number", f[2])
	}
	if r.tagFn == nil {
		r.tagFn = r.tag
	}
	return point{metric: r.strs.String(f[0]), time: ts, value: v, tag: r.tagFn}, whole, nil
}

// tag is the current row's value of a tag column, "" without one.
func (r *csvRow) tag(k string) string {
	if i, ok := r.index[k]; ok {
		return r.strs.String(r.fields[i])
	}
	return ""
}

func parseCSVLine(b []byte) ([]string, error) {
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	return cr.Read()
}

// parseTimestamp reads k6's timeFormat variants: Unix seconds (the
// default), milli-, micro- or nanoseconds told apart by magnitude, and
// RFC 3339.
func parseTimestamp(s string) (t time.Time, whole bool, err error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case n > 1e17:
			return time.Unix(0, n), false, nil
		case n > 1e14:
			return time.UnixMicro(n), false, nil
		case n > 1e11:
			return time.UnixMilli(n), false, nil
		}
		return time.Unix(n, 0), true, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) < 1e11 {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)), false, nil
	}
	t, err = time.Parse(time.RFC3339Nano, s)
	return t, false, err
}
