package jmeter

import (
	"bufio"
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

// CSVFormat reads a JTL file in CSV form, with or without a header row.
type CSVFormat struct{}

func (CSVFormat) Name() string { return "jmeter-jtl-csv" }

// Sniff accepts JMeter's header row, or a sample in a default layout.
func (CSVFormat) Sniff(_ string, head []byte) bool {
	line := importer.FirstLine(head)
	if line == "" || line[0] == '<' || line[0] == '{' || line[0] == '[' {
		return false
	}
	cr := csv.NewReader(strings.NewReader(line))
	cr.Comma = delimiter(line)
	cr.FieldsPerRecord = -1
	row, err := cr.Read()
	if err != nil {
		return false
	}
	if isHeader(row) {
		return true
	}
	if !looksLikeTimestamp(row[0]) || len(row) < 2 || !importer.Digits(strings.TrimSpace(row[1])) {
		return false
	}
	_, err = columnsFromDefaults(row)
	return err == nil
}

func (t CSVFormat) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "JMeter")(t.ImportAll(name, r))
}

func (CSVFormat) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	br := bufio.NewReaderSize(r, 64<<10) // Read has taken off a byte order mark
	head, _ := br.Peek(64 << 10)
	rows := newRowReader(br, delimiter(importer.FirstLine(head)))
	p := &csvParse{file: name, histograms: fileHistograms}
	p.filter = newSampleFilter(&p.histograms)
	for {
		row, line, unterminated, err := rows.next()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if unterminated {
				p.cut(pe.StartLine, pe.Err.Error())
				break
			}
			return nil, &importer.SyntaxError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if unterminated {
			// Even a row that parses may have lost the end of its last
			// field ("…,5,0," of "…,5,0,12"): the writer stopped in it.
			p.cut(line, "it has no line break")
			break
		}
		if err := p.row(row, line); errors.As(err, new(*importer.Unsupported)) {
			return nil, err
		} else if err != nil {
			return nil, &importer.SyntaxError{File: name, Line: line, Msg: err.Error()}
		}
	}
	return p.finish()
}

type csvParse struct {
	file      string
	cols      *columns
	times     timeParser
	filter    *sampleFilter // the current run's
	samples   int
	fileNotes []string // on every run of the file
	notes     []string // on the current run
	split     runSplitter
	runs      []*result.Run // those before the current one
	starts    []runStart    // where each run after the first begins
	// histograms is the step histograms left to the file's runs.
	histograms int
}

// fileHistograms bounds the step histograms of one file, whatever its
// runs: as many as one run's two builders (requests and transactions) may
// hold, so that appended runs cost no more memory than one.
const fileHistograms = 2 * rawrun.MaxSteps

type runStart struct {
	line  int
	pause time.Duration
}

func (p *csvParse) row(row []string, line int) error {
	if p.cols == nil {
		return p.firstRow(row, line)
	}
	if !p.cols.headerless && p.mayBeHeader(row) && isHeader(row) {
		p.notes = append(p.notes, fmt.Sprintf("a repeated header row at line %d was skipped (files appended together?)", line))
		return nil
	}
	if len(row) != p.cols.n {
		if p.cols.headerless {
			return fmt.Errorf("expected %d fields like the first row (JMeter's default layout), got %d", p.cols.n, len(row))
		}
		return fmt.Errorf("expected %d fields as in the header row, got %d", p.cols.n, len(row))
	}
	s, err := p.sample(row)
	if err != nil {
		return err
	}
	if newRun, pause := p.split.next(s); newRun {
		if len(p.runs)+1 >= maxRuns {
			return &importer.Unsupported{File: p.file, Reason: fmt.Sprintf(
				"more than %d runs appended one after another (a new one at line %d, after a pause of %v); "+
					"give each JMeter run its own results file (a new -l path, or delete the file first)", maxRuns, line, pause.Round(time.Second))}
		}
		p.endRun()
		p.starts = append(p.starts, runStart{line, pause})
	}
	p.samples++
	p.filter.add(s)
	return nil
}

// endRun closes the current run; the samples that follow are the next's.
func (p *csvParse) endRun() {
	notes := append(append([]string{}, p.fileNotes...), p.notes...)
	if p.times.zoneless() {
		notes = append(notes, "timestamps carry no time zone: read as UTC")
	}
	p.runs = append(p.runs, p.filter.finish(notes))
	p.filter, p.notes = newSampleFilter(&p.histograms), nil
}

// mayBeHeader is the cheap test that spares isHeader most rows: a sample's
// timestamp starts with a digit (epoch milliseconds or a date), a header's
// column name does not.
func (p *csvParse) mayBeHeader(row []string) bool {
	if p.cols.timeStamp >= len(row) {
		return true
	}
	f := strings.TrimLeft(row[p.cols.timeStamp], " \t")
	return f == "" || f[0] < '0' || f[0] > '9'
}

func (p *csvParse) firstRow(row []string, line int) error {
	if isHeader(row) {
		c, err := columnsFromHeader(row)
		p.cols = &c
		return err
	}
	if !looksLikeTimestamp(row[0]) {
		return fmt.Errorf("expected JMeter's header row (timeStamp,elapsed,label,…) or a sample starting with a timestamp, got %q", importer.Clip(strings.Join(row, string(',')), 80))
	}
	c, err := columnsFromDefaults(row)
	if err != nil {
		return err
	}
	p.cols = &c
	p.fileNotes = append(p.fileNotes, fmt.Sprintf("no header row: read with JMeter's default %d-column layout", c.n))
	return p.row(row, line)
}

func (p *csvParse) sample(row []string) (sample, error) {
	c := p.cols
	start, err := p.times.parse(row[c.timeStamp])
	if err != nil {
		return sample{}, err
	}
	elapsed, err := parseElapsed(row[c.elapsed])
	if err != nil {
		return sample{}, fmt.Errorf("elapsed %w", err)
	}
	if n := strings.TrimSpace(field(row, c.sampleCount)); n != "" && n != "1" && n != "0" {
		return sample{}, &importer.Unsupported{File: p.file, Reason: fmt.Sprintf(
			"a row stands for %s samples (JMeter's statistical sample mode); tailgate needs one row per sample", n)}
	}
	s := sample{
		start: start, elapsedMS: elapsed, label: field(row, c.label), code: field(row, c.code),
		message: field(row, c.message), thread: field(row, c.thread), failure: field(row, c.failure),
	}
	if c.success >= 0 && !s.setSuccess(row[c.success]) {
		return sample{}, fmt.Errorf("success %q is not true or false", strings.TrimSpace(row[c.success]))
	}
	return s, nil
}

func (p *csvParse) cut(line int, why string) {
	p.notes = append(p.notes, fmt.Sprintf("the file was cut: its last line (%d) is incomplete (%s) and was skipped", line, why))
}

func (p *csvParse) finish() ([]*result.Run, error) {
	if p.cols == nil {
		return nil, &importer.SyntaxError{File: p.file, Msg: "the file is empty; expected JMeter's header row or samples"}
	}
	if p.samples == 0 {
		return nil, &importer.Unsupported{File: p.file, Reason: "the file holds no samples"}
	}
	p.endRun()
	if n := len(p.runs); n > 1 {
		p.runs[0].Notes = append(p.runs[0].Notes, splitNote(1, n, 0, 0))
		for i, st := range p.starts {
			p.runs[i+1].Notes = append(p.runs[i+1].Notes, splitNote(i+2, n, st.line, st.pause))
		}
	}
	return p.runs, nil
}

// delimiter is the first of JMeter's usual delimiters on the first line;
// timestamps contain none of them.
func delimiter(line string) rune {
	if i := strings.IndexAny(line, ",;\t|"); i >= 0 {
		return rune(line[i])
	}
	return ','
}

// columns maps the JTL fields tailgate reads to their index in a row; -1
// when the file lacks the field.
type columns struct {
	n                                                int // fields per row
	timeStamp, elapsed, label, code, message, thread int
	success, failure, sampleCount                    int
	headerless                                       bool
}

// defaultLayouts are JMeter's default CSV columns by release, keyed by
// their count, for files written without a header row
// (jmeter.save.saveservice.print_field_names=false).
var defaultLayouts = map[int][]string{
	// JMeter 2.x before thread counts were saved, with the failure message
	11: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "Latency"},
	// JMeter 2.x
	12: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "bytes", "grpThreads", "allThreads", "Latency"},
	// JMeter 2.x saving the failure message (assertion_results_failure_message=true)
	13: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "grpThreads", "allThreads", "Latency"},
	// JMeter 3.0
	15: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "grpThreads", "allThreads", "Latency", "IdleTime", "Connect"},
	// JMeter 3.1 – 4.x
	16: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "Latency", "IdleTime", "Connect"},
	// JMeter 5.x
	17: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Latency", "IdleTime", "Connect"},
}

func isHeader(row []string) bool {
	// Called on every row: compare without lowering a copy of each field.
	var ts, el bool
	for _, f := range row {
		f = strings.TrimSpace(f)
		ts = ts || strings.EqualFold(f, "timestamp")
		el = el || strings.EqualFold(f, "elapsed")
	}
	return ts && el
}

// columnsFromHeader reads a header row; timeStamp and elapsed are required.
func columnsFromHeader(row []string) (columns, error) {
	c := newColumns(row)
	if c.timeStamp < 0 || c.elapsed < 0 {
		return c, fmt.Errorf("header row lacks the timeStamp or elapsed column; tailgate needs both")
	}
	return c, nil
}

// columnsFromDefaults picks the default layout of a headerless first row.
func columnsFromDefaults(first []string) (columns, error) {
	names, ok := defaultLayouts[len(first)]
	if !ok {
		return columns{}, fmt.Errorf("no header row, and %d fields match none of JMeter's default layouts (11, 12, 13, 15, 16 or 17 fields); "+
			"add the header row (jmeter.save.saveservice.print_field_names=true)", len(first))
	}
	c := newColumns(names)
	c.headerless = true
	if v := strings.TrimSpace(first[c.success]); v != "true" && v != "false" {
		return c, fmt.Errorf("no header row, and field %d is %q where JMeter's default %d-field layout has success (true/false); "+
			"add the header row (jmeter.save.saveservice.print_field_names=true)", c.success+1, v, len(first))
	}
	return c, nil
}

func newColumns(names []string) columns {
	c := columns{n: len(names), timeStamp: -1, elapsed: -1, label: -1, code: -1, message: -1,
		thread: -1, success: -1, failure: -1, sampleCount: -1}
	index := map[string]*int{"timestamp": &c.timeStamp, "elapsed": &c.elapsed, "label": &c.label,
		"responsecode": &c.code, "responsemessage": &c.message, "threadname": &c.thread,
		"success": &c.success, "failuremessage": &c.failure, "samplecount": &c.sampleCount}
	for i, name := range names {
		if p := index[strings.ToLower(strings.TrimSpace(name))]; p != nil && *p < 0 { // a sample variable may reuse a name; the first wins
			*p = i
		}
	}
	return c
}

func field(row []string, i int) string {
	if i < 0 {
		return ""
	}
	return row[i]
}

// dateLayouts are the timestamp formats read besides epoch milliseconds
// (JMeter's default). jmeter.save.saveservice.timestamp_format takes any
// SimpleDateFormat pattern; these are the common ones. Go's parser also
// accepts a fractional second after the seconds, so "…ss.SSS" is covered.
// Day-first and month-first forms like 05/12/2019 are ambiguous and not read.
var dateLayouts = []string{
	"2006/01/02 15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05", "2006/01/02 15:04:05 Z0700", "2006-01-02 15:04:05 Z0700", "02.01.2006 15:04:05",
}

const layoutsHelp = "epoch milliseconds or a date like 2019/12/05 12:37:24, 2019-12-05 12:37:24.123 or 2019-12-05T12:37:24.123Z; " +
	"set jmeter.save.saveservice.timestamp_format=ms for new runs"

// timeParser reads one file's timestamps; the first timestamp fixes the
// form for the rest of the file.
type timeParser struct {
	layout string // "" until the first timestamp; "ms" for epoch milliseconds
}

func (p *timeParser) parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if p.layout == "" {
		layout, ok := detectLayout(s)
		if !ok {
			return time.Time{}, fmt.Errorf("timestamp %q is not %s", s, layoutsHelp)
		}
		p.layout = layout
	}
	if p.layout == "ms" {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms < 0 {
			return time.Time{}, fmt.Errorf("timestamp %q is not epoch milliseconds like the rest of the file", s)
		}
		if err := importer.CheckEpochMillis(ms); err != nil {
			return time.Time{}, err
		}
		return time.UnixMilli(ms), nil
	}
	t, err := time.Parse(p.layout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q does not match the file's date format %q", s, p.layout)
	}
	return t, nil
}

// zoneless reports whether the file's dates carry no time zone (read as UTC).
func (p *timeParser) zoneless() bool {
	return p.layout != "" && p.layout != "ms" && !strings.Contains(p.layout, "Z07")
}

func detectLayout(s string) (string, bool) {
	if importer.Digits(s) {
		return "ms", true
	}
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return l, true
		}
	}
	return "", false
}

func looksLikeTimestamp(s string) bool {
	_, ok := detectLayout(strings.TrimSpace(s))
	return ok
}

// rowReader reads a JTL's records. Most rows hold no quote, and those are
// split at the delimiter directly, which is several times cheaper than
// encoding/csv; a row with a quote (a message holding the delimiter or a
// line break) is read whole and parsed by encoding/csv, so that both read
// every file alike.
type rowReader struct {
	lines  *importer.LineReader
	comma  byte
	fields []string
}

func newRowReader(br *bufio.Reader, comma rune) *rowReader {
	lines := importer.NewLineReader(br)
	// A CR before the line break stays: encoding/csv, which parses quoted
	// records, must see it to refuse a stray one (`""\r\r`); the unquoted
	// path drops it (see next).
	lines.KeepCR = true
	return &rowReader{lines: lines, comma: byte(comma)}
}

func (r *rowReader) readLine() (string, bool, error) {
	if r.lines.Scan() {
		return string(r.lines.Bytes()), r.lines.Complete(), nil
	} else if err := r.lines.Err(); err != nil {
		return "", false, err
	}
	return "", false, io.EOF
}

// next returns the next record, the line it starts on and whether it ends
// the file without a line break (where a writer stopped mid-row). Empty
// lines are skipped, as encoding/csv skips them. A record that does not
// parse is a *csv.ParseError; the end of the file is io.EOF.
func (r *rowReader) next() (row []string, start int, unterminated bool, err error) {
	var text string
	complete := true
	for text == "" || text == "\r" {
		if text, complete, err = r.readLine(); err != nil {
			return nil, 0, false, err
		}
		if (text == "" || text == "\r") && !complete {
			return nil, 0, false, io.EOF
		}
	}
	start = r.lines.Line()
	if strings.IndexByte(text, '"') < 0 {
		text = strings.TrimSuffix(text, "\r") // a CRLF, or a CR that ends the file
		r.fields = importer.Split(r.fields, text, r.comma)
		return r.fields, start, !complete, nil
	}
	// A quoted field may run over lines: read until the quotes pair up.
	record := text
	for complete && strings.Count(record, `"`)%2 == 1 {
		more, done, err := r.readLine()
		if err == io.EOF {
			break // the quote stays open: encoding/csv says where
		} else if err != nil {
			return nil, 0, false, err
		}
		record, complete = record+"\n"+more, done
	}
	cr := csv.NewReader(strings.NewReader(record))
	cr.Comma = rune(r.comma)
	cr.FieldsPerRecord = -1
	row, err = cr.Read()
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil, start, !complete, &csv.ParseError{StartLine: start, Line: start + pe.Line - 1, Column: pe.Column, Err: pe.Err}
	}
	if err == nil {
		if _, err2 := cr.Read(); err2 != io.EOF {
			err = &csv.ParseError{StartLine: start, Line: start, Err: errors.New("a quoted field does not end where its record does")}
		}
	}
	return row, start, !complete, err
}
