package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// LineReader reads a file line by line, as bufio.Scanner does, but with no
// limit on a line's length, the lines' 1-based numbers, and whether each
// ended with a newline (a last line without one may be where the file was
// cut). A line is read in place in the buffer, copied only when it is
// longer: a per-request file is millions of short lines.
type LineReader struct {
	KeepCR   bool // a CR before the line break stays (see jmeter's rowReader)
	br       *bufio.Reader
	n        int
	line     []byte
	complete bool
	err      error
	cut      int
	long     []byte // a line longer than br's buffer, being put together
}

func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

func (l *LineReader) Scan() bool {
	b, err := l.readLine()
	if err != nil && err != io.EOF {
		l.line, l.complete, l.err = nil, false, fmt.Errorf("reading line %d: %w", l.n+1, err)
		return false
	}
	if len(b) == 0 {
		l.line, l.complete = nil, false
		return false
	}
	l.n++
	if l.line, l.complete = bytes.TrimSuffix(b, []byte("\n")), err == nil; !l.KeepCR {
		l.line = bytes.TrimRight(l.line, "\r")
	}
	return true
}

// Row advances to the next complete line of a file of one record per line
// (a CSV, a TSV, NDJSON): a last line without a line break is where a
// writer stopped mid-record, and even when it parses its last field may be
// cut short ("0.12" of "0.1234"), so it is not given: Row is false, and
// Cut says where. Blank lines are given; the caller skips them.
func (l *LineReader) Row() bool {
	if !l.Scan() {
		return false
	}
	if !l.complete && len(bytes.TrimSpace(l.line)) > 0 {
		l.cut, l.line = l.n, nil
		return false
	}
	return true
}

// FirstLine is head's first line, without a byte order mark or line ending.
func FirstLine(head []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimPrefix(head, []byte("\ufeff")), []byte{'\n'})
	return strings.TrimRight(string(line), "\r")
}

func (l *LineReader) Cut() int { return l.cut }

// Header reads a first line that must be header (after a BOM); else a
// *SyntaxError at line 1 saying what was expected.
func (l *LineReader) Header(name, header, expected string) error {
	if l.Row() && strings.TrimPrefix(string(l.Bytes()), "\ufeff") == header {
		return nil
	} else if err := l.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return &SyntaxError{File: name, Line: 1, Msg: expected}
}

// Rows gives row each non-blank line, an error from it being a
// *SyntaxError at that line; it returns the note for a cut last line: one
// Row leaves out, or with selfClosing (a JSON object closes itself, so a
// last line without a line break that parses is whole) one row fails on.
func (l *LineReader) Rows(name string, selfClosing bool, row func([]byte) error) ([]string, error) {
	for selfClosing && l.Scan() || !selfClosing && l.Row() {
		if len(bytes.TrimSpace(l.line)) == 0 {
			continue
		} else if err := row(l.line); err != nil && selfClosing && !l.complete {
			l.cut = l.n
		} else if err != nil {
			return nil, &SyntaxError{File: name, Line: l.n, Msg: err.Error()}
		}
	}
	if l.err != nil {
		return nil, fmt.Errorf("%s: %w", name, l.err)
	} else if l.cut > 0 {
		return []string{CutNote(l.cut)}, nil
	}
	return nil, nil
}

// readLine is bufio.Reader.ReadBytes without the copy of a line that fits
// the buffer; a longer one is put together in l.long (see AppendLong).
func (l *LineReader) readLine() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	l.long = append(l.long[:0], b...)
	for err == bufio.ErrBufferFull {
		b, err = l.br.ReadSlice('\n')
		AppendLong(&l.long, b)
	}
	return l.long, err
}

// hugeLine is the length past which a growing line gives the array it
// outgrew back at once: the collector would keep each until the heap
// doubled, several times the line in all.
const hugeLine = 64 << 20

// AppendLong appends b to *line, a line being put together from a reader's
// buffers: past hugeLine it grows by a quarter (old and new array are 2.25
// times the line) and frees the outgrown array (held only through *line).
func AppendLong(line *[]byte, b []byte) {
	switch l := *line; {
	case len(l)+len(b) <= cap(l):
	case cap(l) < hugeLine:
		*line = slices.Grow(l, len(b))
	default:
		grown := make([]byte, len(l), max(cap(l)+cap(l)/4, len(l)+len(b)))
		copy(grown, l)
		*line = grown
		debug.FreeOSMemory() // the outgrown array is unreachable now
	}
	*line = append(*line, b...)
}

// Bytes is the current line without its line ending, valid until the
// next Scan or Row; Complete says it ended with a newline.
func (l *LineReader) Bytes() []byte  { return l.line }
func (l *LineReader) Complete() bool { return l.complete }
func (l *LineReader) Line() int      { return l.n }
func (l *LineReader) Err() error     { return l.err }

func CutNote(line int) string {
	return fmt.Sprintf("file was cut: line %d is incomplete and was skipped; the lines before it were imported", line)
}

// TextReport reads a tool's text output (vegeta report, wrk, ab, hey, oha,
// bombardier) line by line, each line trimmed. A file may hold several
// reports one after another (a log of a sweep), each opened by a line
// Starts accepts; lines before the first report (a shell prompt, the
// command) are skipped.
type TextReport struct {
	Starts func(line string) bool
	// Before, when set, sees the lines before the first report (where a
	// tool that gave up says why).
	Before func(line string)
	// Whole, when set, reports whether a last line without a line break
	// shows by itself that it is complete (ab's "(longest request)").
	Whole func(line string) bool
}

type Report interface {
	Take(line string) error
	// Cut says that the file ends in a line that was not read (partial is
	// what the file holds of it, which can tell what line it was, never
	// its figures), and returns whether that line may be this report's.
	// If so, what the lines after would have said is unknown: the report
	// leaves out, or refuses in Finish, every figure that a later line
	// could have changed (a list of statuses or errors that may go on, a
	// count whose line may be missing and would otherwise read as 0), so
	// that a cut report holds fewer figures, never other ones. If not (a
	// closing fence or a sentence after a report pasted in a README), the
	// report is whole, and the line is text after it.
	Cut(partial string) bool
	// Finish turns the report into a run, or says why it holds none.
	Finish(file string) (*result.Run, error)
}

// ReadReports reads every report of a text file, each into the state
// begin makes at its first line (numbered from 1) around a new run, and returns their runs
// in file order; a line Take fails on is a *SyntaxError at that line, and
// so is a file without a report, saying what was expected.
//
// A file whose last line has no line break may have been cut in that line
// ("55.927m" for "55.927ms", "Requests/sec: 5" for 5527.14), and the
// figures cannot tell: so that line is left out, the report it belongs to
// is told (Report.Cut), and its run gets a note (CutNote); unless Whole
// says the line is complete (a report saved without its last line break).
func (t TextReport) ReadReports(name, expected string, r io.Reader, begin func(line int, run *result.Run) Report) ([]*result.Run, error) {
	var reps []Report
	cut, partial := 0, ""
	lines := NewLineReader(r)
	for lines.Scan() {
		text := strings.TrimSpace(string(lines.Bytes()))
		if !lines.Complete() && text != "" && (t.Whole == nil || !t.Whole(text)) {
			cut, partial = lines.Line(), text
			break
		}
		if t.Starts(text) {
			reps = append(reps, begin(lines.Line(), &result.Run{Metrics: map[string]float64{}}))
		}
		if len(reps) == 0 {
			if t.Before != nil {
				t.Before(text)
			}
		} else if err := reps[len(reps)-1].Take(text); err != nil {
			return nil, &SyntaxError{File: name, Line: lines.Line(), Msg: err.Error()}
		}
	}
	if err := lines.Err(); err != nil {
		return nil, &SyntaxError{File: name, Msg: fmt.Sprintf("%v; expected a text report", err)}
	}
	if len(reps) == 0 {
		if cut > 0 {
			expected += fmt.Sprintf(" (the file was cut: line %d is incomplete)", cut)
		}
		return nil, &SyntaxError{File: name, Msg: expected}
	}
	if cut > 0 && !reps[len(reps)-1].Cut(partial) {
		cut = 0
	}
	runs := make([]*result.Run, 0, len(reps))
	for i, rep := range reps {
		run, err := rep.Finish(name)
		if err != nil && cut > 0 && i == len(reps)-1 {
			return nil, cutError(err, cut)
		} else if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	if cut > 0 {
		last := runs[len(runs)-1]
		last.Notes = append(last.Notes, CutNote(cut))
	}
	return runs, nil
}

// Sections reads the sections of hey's and oha's summaries, each under a
// heading ("Summary:"), and the status code and error distributions that
// close both ("[200]  98 responses", "[3]  dial tcp: …"): every response
// and every error is a request.
type Sections struct {
	Section  string // the heading of the section being read
	CutIn    bool   // the file ends inside this report: see Cut
	statuses counts[int]
	errors   counts[string]
}

var (
	countRe = regexp.MustCompile(`^\[(\d+)\]\s+(\d+) responses$`)
	errorRe = regexp.MustCompile(`^\[(\d+)\]\s+(.*)$`)
)

// Take reads a heading, or a line of the distributions; false for any
// other line, which is the caller's.
func (d *Sections) Take(text string) (bool, error) {
	if strings.HasSuffix(text, ":") && !strings.Contains(text, "\t") {
		d.Section = text
		return true, nil
	}
	switch d.Section {
	case "Status code distribution:":
		if m := countRe.FindStringSubmatch(text); m != nil {
			code, _ := strconv.Atoi(m[1])
			n, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil || n > 1<<53 {
				return true, fmt.Errorf("status %s: expected a count, got %q", m[1], m[2])
			}
			d.AddStatus(code, n)
		}
	case "Error distribution:":
		if m := errorRe.FindStringSubmatch(text); m != nil {
			n, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil || n > 1<<53 {
				return true, fmt.Errorf("error count %q: expected a number", m[1])
			}
			d.AddError(m[2], n)
		}
	default:
		return false, nil
	}
	return true, nil
}

func (d *Sections) AddStatus(code int, n int64)  { d.statuses.add(code, n) }
func (d *Sections) AddError(msg string, n int64) { d.errors.add(msg, n) }

// counts counts by key, the keys in the order first added.
type counts[K comparable] struct {
	keys []K
	n    map[K]int64
}

func (c *counts[K]) add(k K, n int64) {
	if c.n == nil {
		c.n = map[K]int64{}
	}
	if _, ok := c.n[k]; !ok {
		c.keys = append(c.keys, k)
	}
	c.n[k] += n
}

// Fill counts the run's requests: a status outside 2xx/3xx or an error
// failed one; skip, when set, leaves an error out (oha's in flight).
func (d *Sections) Fill(run *result.Run, classes MessageClasses, skip func(msg string, n int64) bool) {
	for _, code := range d.statuses.keys {
		n := d.statuses.n[code]
		run.Requests.Total += n
		if code < 200 || code >= 400 {
			run.Requests.Failed += n
			run.Errors = append(run.Errors, result.ErrorClass{Class: result.ErrStatus, Count: n, Sample: "status " + strconv.Itoa(code)})
		}
	}
	for _, msg := range d.errors.keys {
		if n := d.errors.n[msg]; skip == nil || !skip(msg, n) {
			run.Requests.Total += n
			run.Requests.Failed += n
			run.Errors = append(run.Errors, result.ErrorClass{Class: classes.Class(msg), Count: n, Sample: OneLine(msg)})
		}
	}
	run.Requests.Counted = result.CountRequests
}

// Cut reports whether a last line, partial, cut while the summary was in
// its sections may be the summary's: the distributions that close it hold
// only "[…] …" lines and the "Error distribution:" heading, so a line that
// can begin neither is text after it (a closing fence in a README).
func (d *Sections) Cut(partial string) bool {
	d.CutIn = (d.Section != "Status code distribution:" && d.Section != "Error distribution:") ||
		strings.HasPrefix(partial, "[") || strings.HasPrefix("Error distribution:", partial)
	return d.CutIn
}

// cutError adds to why a cut report holds no run that the file was cut.
func cutError(err error, line int) error {
	why := fmt.Sprintf("; the file was cut: line %d is incomplete", line)
	var syn *SyntaxError
	var uns *Unsupported
	switch {
	case errors.As(err, &syn):
		return &SyntaxError{File: syn.File, Line: syn.Line, Msg: syn.Msg + why}
	case errors.As(err, &uns):
		return &Unsupported{File: uns.File, Reason: uns.Reason + why}
	}
	return fmt.Errorf("%w%s", err, why)
}
