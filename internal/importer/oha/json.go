package oha

import (
	"bytes"
	"io"
	"slices"
	"strconv"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// JSON reads `oha --json` (or -j, or --output-format json): times in
// seconds, a latency that was never measured written as null.
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
	for p, key := range percentKeys {
		seconds(key, d.LatencyPercentiles["p"+strconv.FormatFloat(p, 'f', -1, 64)])
	}
	if v := d.Summary.RequestsPerSec; v != nil && *v >= 0 {
		run.Metrics[result.RequestsPerSec] = *v
	}
	var t tally
	for _, code := range sortedCodes(d.StatusCodes) {
		c, _ := strconv.Atoi(code)
		t.addStatus(c, importer.Count(d.StatusCodes[code]))
	}
	for _, msg := range sortedKeys(d.Errors) {
		t.addError(msg, importer.Count(d.Errors[msg]))
	}
	return finish(name, run, &t, "")
}

// sortedCodes are the status codes that are numbers, in order.
func sortedCodes(m map[string]float64) []string {
	var codes []string
	for _, k := range sortedKeys(m) {
		if _, err := strconv.Atoi(k); err == nil {
			codes = append(codes, k)
		}
	}
	return codes
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
