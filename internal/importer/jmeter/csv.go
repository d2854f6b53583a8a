package jmeter

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// CSVFormat reads a JTL file in CSV form, with or without a header row.
type CSVFormat struct{}

func (CSVFormat) Name() string { return "jmeter-jtl-csv" }

// Sniff accepts a first line that is JMeter's header row, or a sample in
// one of JMeter's default layouts.
func (CSVFormat) Sniff(_ string, head []byte) bool {
	line := firstLine(head)
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
	if !looksLikeTimestamp(row[0]) || len(row) < 2 || !isDigits(row[1]) {
		return false
	}
	_, err = columnsFromDefaults(row)
	return err == nil
}

func (CSVFormat) Import(name string, r io.Reader) (*result.Run, error) {
	runs, err := CSVFormat{}.ImportAll(name, r)
	return importer.One(name, "JMeter", runs, err)
}

// ImportAll reads every run of the file: JMeter appends each run to an
// existing file, and the runs are told apart as runs.go says.
func (CSVFormat) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	head, _ := br.Peek(64 << 10)
	rows := newRowReader(br, delimiter(firstLine(head)))
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

// csvParse is the state of one CSV import.
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

// runStart is where a run of an appended file begins.
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

func firstLine(head []byte) string {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return strings.TrimRight(string(head), "\r")
}

// delimiter is the first of JMeter's usual delimiters on the first line;
// timestamps contain none of them.
func delimiter(line string) rune {
	if i := strings.IndexAny(line, ",;\t|"); i >= 0 {
		return rune(line[i])
	}
	return ','
}

func isDigits(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789") == ""
}
