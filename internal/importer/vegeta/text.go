package vegeta

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Text reads `vegeta report` (the default text layout). Each line names its
// fields in brackets, so both the old "Latencies [mean, 50, 95, 99, max]"
// and the newer "[min, mean, 50, 90, 95, 99, max]" read the same way.
type Text struct{}

func (Text) Name() string { return "vegeta-text" }

// textLineRe splits "Label  [f1, f2]  v1, v2" into its parts.
var textLineRe = regexp.MustCompile(`^([A-Za-z][A-Za-z ]*?)\s*\[([^\]]*)\]\s*(.*)$`)

func (Text) Sniff(_ string, head []byte) bool {
	return bytes.Contains(head, []byte("Requests      [total, rate")) && bytes.Contains(head, []byte("Latencies")) || isHist(head)
}

// histRe is the header of `vegeta report -type=hist[…]`.
var histRe = regexp.MustCompile(`^Bucket\s+#\s+%\s+Histogram\r?$`)

// isHist reports a vegeta histogram report. Detection claims it so that it
// is refused with advice rather than as a file of no known format.
func isHist(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	return histRe.Match(line)
}

var textLatency = map[string]string{
	"mean": result.LatencyMean, "50": result.LatencyP50, "90": result.LatencyP90,
	"95": result.LatencyP95, "99": result.LatencyP99, "max": result.LatencyMax,
}

func (t Text) Import(name string, r io.Reader) (*result.Run, error) {
	return importer.One(name, "vegeta text")(t.ImportAll(name, r))
}

type textRun struct {
	line      int
	run       *result.Run
	sawStatus bool
	// errorSet is the report's "Error Set:" list, which names what
	// status 0 (no response) was: a timeout or a transport failure.
	errorSet   []string
	inErrorSet bool
}

// ImportAll reads every report of the file (a log often keeps several).
func (Text) ImportAll(name string, r io.Reader) ([]*result.Run, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(256); isHist(head) {
		return nil, &importer.Unsupported{File: name, Reason: "a vegeta hist report holds bucket counts only (no latencies, duration or statuses); import `vegeta report` or `vegeta report -type=json` of the same results, or the results themselves"}
	}
	r = br
	starts := func(text string) bool {
		m := textLineRe.FindStringSubmatch(text)
		return m != nil && m[1] == "Requests"
	}
	return importer.TextReport{Starts: starts}.ReadReports(name,
		"no \"Requests [total, rate, throughput]\" line; expected a vegeta text report", r, func(line int, run *result.Run) importer.Report { return &textRun{line: line, run: run} })
}

func (rep *textRun) Take(text string) error {
	if text == "Error Set:" {
		rep.inErrorSet = true
		return nil
	}
	if rep.inErrorSet {
		if text != "" {
			rep.errorSet = append(rep.errorSet, text)
		}
		return nil
	}
	m := textLineRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	rep.sawStatus = rep.sawStatus || m[1] == "Status Codes"
	return applyTextLine(rep.run, m[1], splitList(m[2]), splitList(m[3]))
}

// Cut needs to drop nothing: each figure is on a line of its own, and the
// failures come from the one Status Codes line, without which they are
// unknown (sawStatus), not zero. A cut in the Error Set loses message
// texts only.
func (rep *textRun) Cut(string) bool { return true }

func (rep *textRun) Finish(name string) (*result.Run, error) {
	run := rep.run
	if run.Requests.Total <= 0 {
		return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("the vegeta report at line %d has no requests: nothing to judge", rep.line)}
	}
	if _, ok := run.Metrics[result.LatencyMean]; !ok {
		return nil, &importer.SyntaxError{File: name, Line: rep.line, Msg: "the report that starts here has no Latencies line; expected a whole vegeta text report"}
	}
	rep.nameErrors()
	run.Requests.Counted = result.CountTotal
	if rep.sawStatus { // else failures are unknown, not zero
		run.Requests.Counted = result.CountRequests
	}
	importer.Summarize(run)
	return run, nil
}

// nameErrors gives each failed status its message from the Error Set, as
// the JSON report's errors do, and classes status 0 by it.
func (rep *textRun) nameErrors() {
	for i, e := range rep.run.Errors {
		c, ok := strings.CutPrefix(e.Sample, "status ")
		code, err := strconv.Atoi(c)
		if !ok || err != nil {
			continue
		}
		sample := importer.OneLine(sampleFor(code, rep.errorSet))
		rep.run.Errors[i].Class, rep.run.Errors[i].Sample = errorClass(code, sample), sample
	}
}

func applyTextLine(run *result.Run, label string, fields, values []string) error {
	if len(values) < len(fields) && label != "Status Codes" {
		return fmt.Errorf("%s: %d values for %d fields [%s]", label, len(values), len(fields), strings.Join(fields, ", "))
	}
	switch label {
	case "Requests":
		for i, f := range fields {
			v, err := strconv.ParseFloat(values[i], 64)
			if err != nil || v < 0 {
				return fmt.Errorf("Requests %s: expected a number, got %q", f, values[i])
			}
			switch f {
			case "total":
				run.Requests.Total = int64(v)
			case "rate":
				run.Metrics[result.RequestsPerSec] = v
			}
		}
	case "Duration":
		if i := slices.Index(fields, "attack"); i >= 0 {
			d, err := time.ParseDuration(values[i])
			if err != nil {
				return fmt.Errorf("Duration attack: expected a Go duration such as 10.5s, got %q", values[i])
			}
			run.Window = d.Seconds()
		}
	case "Latencies":
		for i, f := range fields {
			d, err := time.ParseDuration(values[i])
			if err != nil {
				return fmt.Errorf("Latencies %s: expected a Go duration such as 5.2ms, got %q", f, values[i])
			}
			if key, ok := textLatency[f]; ok {
				run.Metrics[key] = float64(d) / float64(time.Millisecond)
			}
		}
	case "Status Codes":
		return textStatusCodes(run, values)
	}
	return nil
}

// textStatusCodes reads "200:90  503:5" into failures per status.
func textStatusCodes(run *result.Run, values []string) error {
	for _, pair := range strings.Fields(strings.Join(values, " ")) {
		c, n, ok := strings.Cut(pair, ":")
		code, err1 := strconv.Atoi(c)
		count, err2 := strconv.ParseInt(n, 10, 64)
		if !ok || err1 != nil || err2 != nil || count < 0 {
			return fmt.Errorf("Status Codes: expected code:count pairs, got %q", pair)
		}
		if failedCode(code) && count > 0 {
			run.Requests.Failed += count
			run.Errors = append(run.Errors, result.ErrorClass{Class: errorClass(code, ""), Count: count, Sample: statusSample(code, "")})
		}
	}
	return nil
}

func splitList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
