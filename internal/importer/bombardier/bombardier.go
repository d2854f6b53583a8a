// Package bombardier owns the bombardier importers: its plain-text result
// and its -o json result (best with -p r, so that the file holds the
// result alone), both bombardier's own figures; the JSON adds the duration.
package bombardier

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(Text{}, JSON{}) }

// Text reads bombardier's plain-text results; a log may hold several.
type Text struct{}

// JSON reads `bombardier -o json`.
type JSON struct{}

func (Text) Name() string { return "bombardier-text" }
func (JSON) Name() string { return "bombardier-json" }

func (Text) Sniff(_ string, head []byte) bool {
	return bytes.Contains(head, []byte("Statistics        Avg      Stdev        Max")) &&
		bytes.Contains(head, []byte("HTTP codes:"))
}

func (JSON) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"spec"`)) &&
		bytes.Contains(t, []byte(`"numberOfConnections"`)) && bytes.Contains(t, []byte(`"result"`))
}

// classes are bombardier's status classes as its files count them; 1xx,
// 4xx and 5xx failed a request, as did an error ("others").
var classes = []struct {
	name   string
	failed bool
}{{"1xx", true}, {"2xx", false}, {"3xx", false}, {"4xx", true}, {"5xx", true}}

// errorClasses classes fasthttp's and net/http's error descriptions.
var errorClasses = importer.MessageClasses{
	Timeout:    []string{"timeout", "timed out", "deadline exceeded"},
	Connection: []string{"connect", "connection", "refused", "reset", "broken pipe", "eof", "closed"},
}

type counts struct {
	byClass [5]int64 // as classes
	others  int64
	errors  []result.ErrorClass // by description, as the file lists them
}

func (c *counts) fill(run *result.Run) {
	for i, cl := range classes {
		n := c.byClass[i]
		run.Requests.Total += n
		if cl.failed {
			run.Requests.Failed += n
			importer.AddError(run, result.ErrStatus, n, "status "+cl.name)
		}
	}
	run.Requests.Total += c.others
	run.Requests.Failed += c.others
	var listed int64
	for _, e := range c.errors {
		listed += e.Count
	}
	run.Errors = append(run.Errors, c.errors...)
	importer.AddError(run, result.ErrConnection, c.others-listed, "requests without a response (bombardier's \"others\")")
	run.Requests.Counted = result.CountRequests
}

func (c *counts) addError(desc string, n int64) {
	c.errors = append(c.errors, result.ErrorClass{Class: errorClasses.Class(desc), Count: n, Sample: importer.OneLine(desc)})
}

func finish(name, where string, run *result.Run, c *counts) (*result.Run, error) {
	c.fill(run)
	if run.Requests.Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "the bombardier result" + where + " counts no requests: nothing to judge"}
	}
	if run.Requests.Failed == run.Requests.Total {
		importer.DropLatencies(run.Metrics, false) // bombardier times failed requests too
	}
	run.Summarize()
	return run, nil
}

var (
	startRe   = regexp.MustCompile(`^Statistics\s+Avg\s+Stdev\s+Max$`)
	rateRe    = regexp.MustCompile(`^Reqs/sec\s+(\S+)\s+\S+\s+\S+$`)
	latencyRe = regexp.MustCompile(`^Latency\s+(\S+)\s+\S+\s+(\S+)$`)
	percentRe = regexp.MustCompile(`^(\d+)%\s+(\S+)$`)
	codesRe   = regexp.MustCompile(`^1xx - (\d+), 2xx - (\d+), 3xx - (\d+), 4xx - (\d+), 5xx - (\d+)$`)
	othersRe  = regexp.MustCompile(`^others - (\d+)$`)
	errorRe   = regexp.MustCompile(`^(.+) - (\d+)$`)
)

type report struct {
	line               int
	run                *result.Run
	sawCodes, inErrors bool
	sawOthers          bool
	counts
}

func (t Text) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "bombardier")(t.ImportAll(name, r))
}

func (Text) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	return importer.TextReport{Starts: startRe.MatchString}.ReadReports(name,
		`no "Statistics  Avg  Stdev  Max" line; expected a bombardier result`, r, func(line int, run *result.Run) importer.Report { return &report{line: line, run: run} })
}

func (rep *report) Take(text string) error {
	run := rep.run
	switch {
	case text == "Errors:":
		rep.inErrors = true
	case strings.HasPrefix(text, "Throughput:"):
		rep.inErrors = false
	case rep.inErrors:
		if m := errorRe.FindStringSubmatch(text); m != nil {
			n, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil || n > 1<<53 {
				return fmt.Errorf("error count %q: expected a number", m[2])
			}
			rep.addError(m[1], n)
		}
	case rateRe.MatchString(text):
		v, err := strconv.ParseFloat(rateRe.FindStringSubmatch(text)[1], 64)
		if err != nil || v < 0 || v > 1e12 {
			return fmt.Errorf("Reqs/sec: expected a number, got %q", text)
		}
		run.Metrics[result.RequestsPerSec] = v
	case latencyRe.MatchString(text):
		m := latencyRe.FindStringSubmatch(text)
		mean, err1 := importer.Millis(m[1])
		max, err2 := importer.Millis(m[2])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("Latency: %v", cmp.Or(err1, err2))
		}
		run.Metrics[result.LatencyMean], run.Metrics[result.LatencyMax] = mean, max
	case percentRe.MatchString(text):
		m := percentRe.FindStringSubmatch(text)
		v, err := importer.Millis(m[2])
		if err != nil {
			return fmt.Errorf("latency %s%%: %v", m[1], err)
		}
		importer.Percentile(run.Metrics, m[1], v)
	case codesRe.MatchString(text):
		for i, s := range codesRe.FindStringSubmatch(text)[1:] {
			if rep.byClass[i] = atoi(s); rep.byClass[i] < 0 {
				return fmt.Errorf("HTTP codes: %s is not a count", s)
			}
		}
		rep.sawCodes = true
	case othersRe.MatchString(text):
		rep.others = atoi(othersRe.FindStringSubmatch(text)[1])
		rep.sawOthers = true
	}
	return nil
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > 1<<53 {
		return -1
	}
	return n
}

// Cut: the failures are the 4xx, 5xx and "others" counts, each on a line
// of its own; a report cut before its "others" line would read 0 for a
// count it does not have, so it is refused. A cut in the list of errors
// after it loses message texts only.
func (rep *report) Cut(string) bool {
	rep.sawCodes = rep.sawCodes && rep.sawOthers
	return true
}

// Finish: the text states no duration, so the run has no window, and its
// requests/s is bombardier's mean of the rates it sampled.
func (rep *report) Finish(name string) (*result.Run, error) {
	if !rep.sawCodes || rep.others < 0 {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: `the result that starts here has no "1xx - …, 2xx - …" line; expected a whole bombardier result`}
	}
	rep.run.Notes = append(rep.run.Notes, "bombardier's text states no duration: no window, and requests/s is its mean of sampled rates (its -o json has the duration)")
	return finish(name, fmt.Sprintf(" at line %d", rep.line), rep.run, &rep.counts)
}

type jsonDoc struct {
	Spec   *json.RawMessage `json:"spec"`
	Result *struct {
		TimeTaken *float64 `json:"timeTakenSeconds"`
		Req1xx    *float64 `json:"req1xx"`
		Req2xx    *float64 `json:"req2xx"`
		Req3xx    *float64 `json:"req3xx"`
		Req4xx    *float64 `json:"req4xx"`
		Req5xx    *float64 `json:"req5xx"`
		Others    *float64 `json:"others"`
		Errors    []struct {
			Description string  `json:"description"`
			Count       float64 `json:"count"`
		} `json:"errors"`
		Latency *struct { // microseconds
			Mean        float64            `json:"mean"`
			Max         float64            `json:"max"`
			Percentiles map[string]float64 `json:"percentiles"`
		} `json:"latency"`
	} `json:"result"`
}

const jsonWhat = `bombardier -o json result ({"spec":{…},"result":{…}})`

func (JSON) Import(name string, r io.Reader) (*result.Run, error) {
	var d jsonDoc
	if _, err := importer.DecodeJSON(name, r, &d, "expected a "+jsonWhat); err != nil {
		return nil, err
	}
	res := d.Result
	if d.Spec == nil || res == nil || res.TimeTaken == nil || res.Req2xx == nil || res.Others == nil {
		return nil, &importer.SyntaxError{File: name, Msg: `no "result" with "timeTakenSeconds", "req2xx" and "others"; expected a ` + jsonWhat}
	}
	run := &result.Run{Metrics: map[string]float64{}}
	if t := *res.TimeTaken; t > 0 && t < 1e9 {
		run.Window = t
	}
	var c counts
	for i, v := range []*float64{res.Req1xx, res.Req2xx, res.Req3xx, res.Req4xx, res.Req5xx} {
		if v != nil {
			c.byClass[i] = importer.Count(*v)
		}
	}
	c.others = importer.Count(*res.Others)
	for _, e := range res.Errors {
		c.addError(e.Description, importer.Count(e.Count))
	}
	if l := res.Latency; l != nil {
		us := func(key string, v float64) {
			if v >= 0 && v < 1e15 {
				run.Metrics[key] = v / 1000
			}
		}
		us(result.LatencyMean, l.Mean)
		us(result.LatencyMax, l.Max)
		for p, key := range importer.Percentiles {
			if v, ok := l.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)]; ok {
				us(key, v)
			}
		}
	}
	return finish(name, "", run, &c)
}
