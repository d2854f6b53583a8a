// Package gatling owns the Gatling importers: simulation.log, text (2.x to
// 3.12) and binary (3.13 on), and the report's js/stats.json, stats.js and
// global_stats.json (to 3.13). Only REQUEST records are requests: a group
// times requests counted on their own; a request in groups is the step
// "group / subgroup / request", as the report names it.
package gatling

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// LogFormat reads a Gatling simulation.log: the tab-separated records of
// Gatling 2.x–3.12, or the binary records of 3.13 and later (binary.go).
type LogFormat struct{}

func (LogFormat) Name() string { return "gatling-simulation-log" }

var recordTypes = map[string]bool{"RUN": true, "USER": true, "REQUEST": true, "GROUP": true, "ERROR": true, "ASSERTION": true}

// Sniff accepts text whose first line is a known record, a binary log
// that opens with Gatling's run record (whatever the file is named: CI
// artifacts are often renamed), or any file named simulation.log (one of
// that name in another form is refused as such on import).
func (LogFormat) Sniff(name string, head []byte) bool {
	if filepath.Base(name) == "simulation.log" || opensWithRunRecord(head) {
		return true
	}
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	typ, rest, found := bytes.Cut(line, []byte{'\t'})
	return found && len(rest) > 0 && recordTypes[string(typ)]
}

func (LogFormat) Import(name string, r io.Reader) (*result.Run, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(512); isBinary(head) {
		return importBinaryLog(name, br)
	}
	p := &logParse{file: name, runs: newRunBuilder()}
	lines := importer.NewLineReader(br)
	if _, err := lines.Rows(name, false, func(b []byte) error { return p.record(string(b)) }); err != nil {
		return nil, err
	}
	if cut := lines.Cut(); cut > 0 {
		// Even a record that parses may have lost the end of its last
		// field (a timestamp): the writer stopped in it.
		p.notes = append(p.notes, fmt.Sprintf("the file was cut: its last line (%d) is incomplete (it has no line break) and was skipped", cut))
	}
	return p.finish()
}

func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// The peek may end inside a multi-byte character: trim up to 3 bytes.
	for i := 0; i < 4 && len(head) > 0; i++ {
		if utf8.Valid(head) {
			return false
		}
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}

type logParse struct {
	file       string
	runs       *runBuilder
	version    string
	seenRecord bool
	errors     int
	errorMsg   string
	groups     int
	notes      []string
}

func (p *logParse) record(line string) error {
	f := strings.Split(line, "\t") // blank lines: Rows skips them
	p.seenRecord = true
	switch f[0] {
	case "REQUEST":
		q, err := parseRequest(f)
		if err != nil {
			return err
		}
		p.runs.add(q)
	case "RUN":
		if len(f) < 5 {
			return fmt.Errorf("RUN record with %d fields; expected RUN, simulation, id, start, description, version", len(f))
		}
		p.version = strings.TrimSpace(f[len(f)-1])
	case "ERROR":
		p.errors++
		if p.errorMsg == "" && len(f) > 1 {
			p.errorMsg = importer.OneLine(f[1])
		}
	case "GROUP":
		p.groups++
	case "USER", "ASSERTION":
	default:
		return fmt.Errorf("unknown record type %q; expected RUN, USER, REQUEST, GROUP, ERROR or ASSERTION, tab-separated (a Gatling 2.x–3.9 simulation.log)",
			importer.OneLine(f[0]))
	}
	return nil
}

func (p *logParse) finish() (*result.Run, error) {
	if !p.seenRecord {
		return nil, &importer.SyntaxError{File: p.file, Msg: "the file is empty; expected Gatling's RUN, USER and REQUEST records"}
	}
	if p.runs.count() == 0 {
		return nil, &importer.Unsupported{File: p.file, Reason: "the log holds no REQUEST records"}
	}
	notes := p.notes
	if p.groups > 0 {
		notes = append(notes, fmt.Sprintf("%d GROUP records not counted: groups time requests that are counted on their own", p.groups))
	}
	if p.errors > 0 {
		notes = append(notes, fmt.Sprintf("%d ERROR records (failures before a request was sent, e.g. %q) are not requests and not counted", p.errors, p.errorMsg))
	}
	return p.runs.finish(notes), nil
}

// requestLayout says where a REQUEST record keeps its fields, by release.
type requestLayout struct {
	groups, name, start, end, status, message int
}

var (
	layout34 = requestLayout{1, 2, 3, 4, 5, 6}  // 3.4–3.9: no user id
	layout30 = requestLayout{2, 3, 4, 5, 6, 7}  // 3.0–3.3: user id first
	layout22 = requestLayout{3, 4, 5, 6, 7, 8}  // 2.2–2.3: scenario, user id
	layout20 = requestLayout{3, 4, 5, 8, 9, 10} // 2.0–2.1: request start … response end
)

const layoutsHelp = "expected 7 tab-separated fields (Gatling 3.4–3.9: REQUEST, groups, name, start, end, OK/KO, message), " +
	"8 (3.0–3.3: with a user id after REQUEST) or 9 or more (2.x: with scenario and user id)"

func pickLayout(f []string) (requestLayout, error) {
	switch {
	case len(f) == 7:
		return layout34, nil
	case len(f) == 8:
		return layout30, nil
	case len(f) >= 11 && isStatus(f[9]):
		return layout20, nil
	case len(f) >= 9 && isStatus(f[7]):
		return layout22, nil
	}
	return requestLayout{}, fmt.Errorf("REQUEST record with %d fields; %s", len(f), layoutsHelp)
}

func isStatus(s string) bool { return s == "OK" || s == "KO" }

func parseRequest(f []string) (request, error) {
	l, err := pickLayout(f)
	if err != nil {
		return request{}, err
	}
	start, err1 := millis(f[l.start], "start")
	end, err2 := millis(f[l.end], "end")
	if err := cmp.Or(err1, err2); err != nil {
		return request{}, err
	}
	if end < start {
		return request{}, fmt.Errorf("request ends (%d) before it starts (%d)", end, start)
	}
	if end-start > importer.MaxMillis {
		return request{}, fmt.Errorf("request lasts %d ms, more than a year: the start or end time is wrong", end-start)
	}
	if !isStatus(f[l.status]) {
		return request{}, fmt.Errorf("status %q is not OK or KO; %s", importer.OneLine(f[l.status]), layoutsHelp)
	}
	return request{step: stepName(f[l.groups], f[l.name]), start: start, end: end, ok: f[l.status] == "OK",
		message: strings.TrimSpace(f[l.message])}, nil
}

// stepName joins the groups (comma-separated) and the name as the report does.
func stepName(groups, name string) string {
	if strings.TrimSpace(groups) == "" {
		return name
	}
	return strings.Join(append(strings.Split(groups, ","), name), " / ")
}

func millis(s, what string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s time %q is not epoch milliseconds", what, importer.OneLine(s))
	}
	if err := importer.CheckEpochMillis(v); err != nil {
		return 0, fmt.Errorf("%s %w", what, err)
	}
	return v, nil
}

func init() { importer.Register(LogFormat{}, StatsFormat{}) }

// koClasses classes KO messages: Gatling's checks on the status read
// "status.find.is(200), but actually found 500"; transport failures name
// the exceptions of Netty and the JDK.
var koClasses = importer.MessageClasses{
	Status:  func(msg string) bool { return strings.HasPrefix(strings.ToLower(msg), "status.") },
	Timeout: []string{"timeout"},
	Connection: []string{
		"connectexception", "connection refused", "connection reset", "closedchannelexception",
		"prematurecloseexception", "unknownhostexception", "sslexception", "sslhandshake",
		"no route to host", "broken pipe", "socketexception", "channel closed", "connection closed",
	},
}

// request is one REQUEST record, in milliseconds since the epoch.
type request struct {
	step       string
	start, end int64
	ok         bool
	message    string
}

// runBuilder accumulates requests into a run with full histograms. The
// span stays in the log's epoch milliseconds, so that the window is their
// exact difference.
type runBuilder struct {
	rb          *rawrun.Builder
	first, last int64
}

func newRunBuilder() *runBuilder {
	return &runBuilder{rb: rawrun.New(rawrun.Options{What: "request names"})}
}

func (b *runBuilder) count() int64 { return b.rb.Requests().Total }

func (b *runBuilder) add(q request) {
	st := b.rb.Request(q.step, time.Duration(q.end-q.start)*time.Millisecond)
	if b.count() == 1 {
		b.first = q.start
	}
	b.first, b.last = min(b.first, q.start), max(b.last, q.end)
	if !q.ok {
		b.rb.Fail(st, koClasses.Class(q.message), "", importer.OneLine(q.message))
	}
}

func (b *runBuilder) finish(notes []string) *result.Run {
	r := b.rb.Run(notes...)
	r.Started = time.UnixMilli(b.first).UTC()
	r.Window = float64(b.last-b.first) / 1000
	r.Summarize()
	return r
}
