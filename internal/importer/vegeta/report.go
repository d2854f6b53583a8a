package vegeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Report reads `vegeta report -type=json`. Latencies are in nanoseconds;
// old reports (before ~2019) lack "90th", "min" and "throughput", which
// then stay absent from the run.
type Report struct{}

func (Report) Name() string { return "vegeta-json" }

func (Report) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"latencies"`)) &&
		bytes.Contains(t, []byte(`"status_codes"`))
}

type report struct {
	Latencies   map[string]json.RawMessage `json:"latencies"`
	Earliest    time.Time                  `json:"earliest"`
	Duration    *int64                     `json:"duration"`
	Requests    *int64                     `json:"requests"`
	Rate        *float64                   `json:"rate"`
	Success     *float64                   `json:"success"`
	StatusCodes map[string]int64           `json:"status_codes"`
	Errors      []string                   `json:"errors"`
}

var latencyKeys = []struct{ field, key string }{
	{"mean", result.LatencyMean}, {"50th", result.LatencyP50}, {"90th", result.LatencyP90},
	{"95th", result.LatencyP95}, {"99th", result.LatencyP99}, {"max", result.LatencyMax},
}

const reportWhat = `vegeta JSON report with "latencies", "requests" and "status_codes"`

func (Report) Import(name string, r io.Reader) (*result.Run, error) {
	var rep report
	if _, err := importer.DecodeJSON(name, r, &rep, "expected a "+reportWhat); err != nil {
		return nil, err
	}
	if rep.Requests == nil || rep.Latencies == nil {
		return nil, &importer.SyntaxError{File: name, Msg: "missing \"requests\" or \"latencies\"; expected a " + reportWhat}
	}
	if rep.Success != nil && !(*rep.Success >= 0 && *rep.Success <= 1) {
		return nil, &importer.SyntaxError{File: name, Msg: fmt.Sprintf("\"success\" is %v; expected a ratio from 0 to 1", *rep.Success)}
	}
	if *rep.Requests <= 0 {
		return nil, &importer.Unsupported{File: name, Reason: "vegeta report of 0 requests"}
	}
	run := &result.Run{Started: rep.Earliest, Metrics: map[string]float64{}}
	run.Requests.Total = *rep.Requests
	for _, k := range latencyKeys {
		var ns float64
		if v, ok := rep.Latencies[k.field]; ok && json.Unmarshal(v, &ns) == nil {
			run.Metrics[k.key] = ns / 1e6
		}
	}
	if rep.Duration != nil && *rep.Duration > 0 {
		run.Window = float64(*rep.Duration) / 1e9
	}
	if rep.Rate != nil && *rep.Rate > 0 {
		run.Metrics[result.RequestsPerSec] = *rep.Rate
	}
	run.Requests.Failed, run.Errors = reportFailures(rep)
	run.Requests.Counted = result.CountTotal
	if rep.StatusCodes != nil || rep.Success != nil { // else failures are unknown, not zero
		run.Requests.Counted = result.CountRequests
	}
	if rep.StatusCodes == nil && rep.Success != nil {
		run.Metrics[result.RequestErrorPct] = 100 * (1 - *rep.Success)
	}
	importer.Summarize(run)
	return run, nil
}

// reportFailures counts failed requests per status code. A report without
// status codes falls back to its success ratio.
func reportFailures(rep report) (int64, []result.ErrorClass) {
	if rep.StatusCodes == nil {
		if rep.Success == nil {
			return 0, nil
		}
		return *rep.Requests - int64(float64(*rep.Requests)**rep.Success+0.5), nil
	}
	var failed int64
	var errs []result.ErrorClass
	for _, c := range slices.Sorted(maps.Keys(rep.StatusCodes)) {
		code, err := strconv.Atoi(c)
		n := rep.StatusCodes[c]
		if err != nil || !failedCode(code) || n <= 0 {
			continue
		}
		failed += n
		sample := sampleFor(code, rep.Errors)
		errs = append(errs, result.ErrorClass{Class: errorClass(code, sample), Count: n, Sample: sample})
	}
	return failed, errs
}

// sampleFor picks the report's error message that belongs to a status:
// vegeta writes "503 Service Unavailable" for statuses and the transport
// error for status 0.
func sampleFor(code int, msgs []string) string {
	prefix := strconv.Itoa(code) + " "
	for _, m := range msgs {
		if code != 0 && strings.HasPrefix(m, prefix) || code == 0 && !startsWithStatus(m) {
			return m
		}
	}
	return statusSample(code, "")
}

func startsWithStatus(m string) bool {
	return len(m) > 4 && m[3] == ' ' && m[0] >= '1' && m[0] <= '5' && m[1] >= '0' && m[1] <= '9' && m[2] >= '0' && m[2] <= '9'
}
