// Package oha owns the oha importers: the text summary (with or without
// its ANSI colours) and the --json/-j summary, both oha's own figures. Its
// text is told from hey's by the "Success rate:" line hey does not print.
package oha

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(Text{}, JSON{}) }

// Text reads oha's text summary; a log may hold several, each a run.
type Text struct{}

func (Text) Name() string { return "oha-text" }

func (Text) Sniff(_ string, head []byte) bool {
	return bytes.Contains(head, []byte("Summary:")) && bytes.Contains(head, []byte("Success rate:")) &&
		bytes.Contains(head, []byte("Requests/sec:"))
}

// deadline is the error oha records for a request still in flight when
// -z ends the run: not the service's failure, and oha leaves it out of
// its success rate; so does tailgate, of its counts.
const deadline = "aborted due to deadline"

var (
	// ansiRe: oha colours its text even in a file.
	ansiRe    = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	fieldRe   = regexp.MustCompile(`^(Success rate|Total|Slowest|Fastest|Average|Requests/sec):\s+(\S+)(?:\s+(\S+(?: \S+)?))?$`)
	percentRe = regexp.MustCompile(`^(\d+(?:\.\d+)?)% in (\S+) (\S+(?: \S+)?)$`)
)

// units are oha's time units, in milliseconds: those of its TimeScale,
// and "secs", which oha before 1.9 always printed.
var units = map[string]float64{
	"ns": 1e-6, "us": 1e-3, "ms": 1, "sec": 1e3, "secs": 1e3, "10 sec": 1e4,
	"min": 6e4, "10 min": 6e5, "hr": 3.6e6,
}

// plain is a line of oha's text without its colours and indentation.
func plain(line string) string { return strings.TrimSpace(ansiRe.ReplaceAllString(line, "")) }

// transport classes oha's error messages (hyper's and the OS's).
var transport = importer.MessageClasses{
	Timeout:    []string{"timeout", "timed out", "deadline"},
	Connection: []string{"connect", "connection", "refused", "reset", "broken pipe", "eof", "dns"},
}

func finish(name string, run *result.Run, t *importer.Sections, where string) (*result.Run, error) {
	t.Fill(run, transport, func(msg string, n int64) bool {
		if msg == deadline {
			run.Notes = append(run.Notes, fmt.Sprintf("%d requests in flight when oha's -z ended the run (%q) are not counted", n, deadline))
		}
		return msg == deadline
	})
	if run.Requests.Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "the oha summary" + where + " lists no responses and no errors: nothing to judge"}
	}
	if run.Requests.Failed == run.Requests.Total {
		importer.DropLatencies(run.Metrics, false) // NaN or 0 when nothing was timed
	}
	run.Summarize()
	return run, nil
}

type report struct {
	line    int
	run     *result.Run
	sawTime bool
	// sawSuccess tells oha's summary from hey's, which has no such line.
	sawSuccess bool
	importer.Sections
}

func (t Text) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "oha")(t.ImportAll(name, r))
}

func (Text) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	starts := func(line string) bool { return plain(line) == "Summary:" }
	return importer.TextReport{Starts: starts}.ReadReports(name, `no "Summary:" line; expected an oha report`, r,
		func(line int, run *result.Run) importer.Report { return &report{line: line, run: run} })
}

// duration reads a figure in one of oha's units as milliseconds. NaN
// (a latency never measured) is absent.
func duration(v, unit string) (float64, bool, error) {
	if v == "NaN" {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	scale, ok := units[unit]
	if err != nil || !ok || f < 0 || f > 1e12 {
		return 0, false, fmt.Errorf("expected a time such as 12.3456 ms, got %q", strings.TrimSpace(v+" "+unit))
	}
	return f * scale, true, nil
}

func (rep *report) Take(line string) error {
	text := plain(line)
	if ok, err := rep.Sections.Take(text); ok {
		return err
	}
	switch rep.Section {
	case "Summary:":
		return rep.summary(text)
	// "Latency distribution:" before oha 0.6; the breakdowns by status
	// class (--stats-success-breakdown) have headings of their own.
	case "Response time distribution:", "Latency distribution:":
		if m := percentRe.FindStringSubmatch(text); m != nil {
			v, ok, err := duration(m[2], m[3])
			if err != nil {
				return fmt.Errorf("latency %s%%: %v", m[1], err)
			} else if ok { // "50.00", or "50" before oha 0.6
				importer.Percentile(rep.run.Metrics, m[1], v)
			}
		}
	}
	return nil
}

func (rep *report) summary(text string) error {
	m := fieldRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	run := rep.run
	switch m[1] {
	case "Success rate":
		rep.sawSuccess = true // the counts say it, and more
		return nil
	case "Requests/sec":
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil || v < 0 || v > 1e12 {
			return fmt.Errorf("Requests/sec: expected a number, got %q", m[2])
		}
		if v == v { // NaN when the run took no time
			run.Metrics[result.RequestsPerSec] = v
		}
		return nil
	}
	v, ok, err := duration(m[2], m[3])
	if err != nil {
		return fmt.Errorf("%s: %v", m[1], err)
	}
	switch {
	case m[1] == "Total" && ok:
		run.Window, rep.sawTime = v/1000, true
	case m[1] == "Slowest" && ok:
		run.Metrics[result.LatencyMax] = v
	case m[1] == "Average" && ok:
		run.Metrics[result.LatencyMean] = v
	}
	return nil
}

// Cut: oha counts requests only in the status code and error
// distributions near the end of its summary, so a cut summary's may be
// missing statuses or errors: its requests and errors are unknown; its
// times and rate, each on a line of its own, stay; as hey's, a report
// whose distributions are followed by other text is whole.
func (rep *report) Cut(partial string) bool {
	text := plain(partial) // a colour cut in its escape keeps its ESC
	rep.CutIn = strings.Contains(text, "\x1b") || rep.Sections.Cut(text)
	return rep.CutIn
}

func (rep *report) Finish(name string) (*result.Run, error) {
	if rep.CutIn && rep.sawTime && rep.sawSuccess {
		rep.run.Notes = append(rep.run.Notes, "the summary is cut in or before its status code and error distributions: requests, failures and errors are not counted")
		rep.run.Summarize()
		return rep.run, nil
	}
	if !rep.sawTime {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the summary that starts here has no "Total:" line; expected a whole oha report`}
	}
	if !rep.sawSuccess {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the summary that starts here has no "Success rate:" line, which oha always prints (hey's summary has none: --format hey-text)`}
	}
	return finish(name, rep.run, &rep.Sections, fmt.Sprintf(" at line %d", rep.line))
}

// JSON reads `oha --json`: seconds, and null for a latency never measured.
type JSON struct{}

func (JSON) Name() string { return "oha-json" }

func (JSON) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"successRate"`)) &&
		bytes.Contains(t, []byte(`"latencyPercentiles"`)) && bytes.Contains(t, []byte(`"summary"`))
}

type jsonDoc struct {
	Summary *struct {
		Total          *float64 `json:"total"`
		Slowest        *float64 `json:"slowest"`
		Average        *float64 `json:"average"`
		RequestsPerSec *float64 `json:"requestsPerSec"`
	} `json:"summary"`
	LatencyPercentiles map[string]*float64 `json:"latencyPercentiles"`
	StatusCodes        map[string]float64  `json:"statusCodeDistribution"`
	Errors             map[string]float64  `json:"errorDistribution"`
}

const jsonWhat = `oha --json summary ({"summary":{…},"latencyPercentiles":{…},…})`

func (JSON) Import(name string, r io.Reader) (*result.Run, error) {
	var d jsonDoc
	if _, err := importer.DecodeJSON(name, r, &d, "expected a "+jsonWhat); err != nil {
		return nil, err
	}
	if d.Summary == nil || d.Summary.Total == nil || d.StatusCodes == nil {
		return nil, &importer.SyntaxError{File: name, Msg: `no "summary" with a "total", or no "statusCodeDistribution"; expected an ` + jsonWhat}
	}
	run := &result.Run{Metrics: map[string]float64{}}
	if t := *d.Summary.Total; t >= 0 && t < 1e9 {
		run.Window = t
	}
	seconds := func(key string, v *float64) {
		if v != nil && *v >= 0 && *v < 1e9 {
			run.Metrics[key] = *v * 1000
		}
	}
	seconds(result.LatencyMax, d.Summary.Slowest)
	seconds(result.LatencyMean, d.Summary.Average)
	for p, key := range importer.Percentiles {
		seconds(key, d.LatencyPercentiles["p"+strconv.FormatFloat(p, 'f', -1, 64)])
	}
	if v := d.Summary.RequestsPerSec; v != nil && *v >= 0 {
		run.Metrics[result.RequestsPerSec] = *v
	}
	var t importer.Sections
	for _, code := range slices.Sorted(maps.Keys(d.StatusCodes)) {
		if c, err := strconv.Atoi(code); err == nil {
			t.AddStatus(c, importer.Count(d.StatusCodes[code]))
		}
	}
	for _, msg := range slices.Sorted(maps.Keys(d.Errors)) {
		t.AddError(msg, importer.Count(d.Errors[msg]))
	}
	return finish(name, run, &t, "")
}
