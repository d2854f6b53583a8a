package vegeta

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Results reads vegeta's per-request results: the gob stream that
// `vegeta attack` writes, or the JSON lines of `vegeta encode`.
type Results struct{}

var _ importer.Format = Results{}

func (Results) Name() string { return "vegeta-results" }

// hit mirrors vegeta's Result. gob matches struct fields by name, so this
// local type decodes vegeta's stream without importing vegeta; JSON tags
// follow `vegeta encode`.
type hit struct {
	Attack    string              `json:"attack"`
	Seq       uint64              `json:"seq"`
	Code      uint16              `json:"code"`
	Timestamp time.Time           `json:"timestamp"`
	Latency   time.Duration       `json:"latency"`
	BytesOut  uint64              `json:"bytes_out"`
	BytesIn   uint64              `json:"bytes_in"`
	Error     string              `json:"error"`
	Body      []byte              `json:"body"`
	Method    string              `json:"method"`
	URL       string              `json:"url"`
	Headers   map[string][]string `json:"headers"`
}

// isGob: a gob stream opens with the type definition of vegeta's Result,
// which names its fields.
func isGob(head []byte) bool {
	if len(head) > 512 {
		head = head[:512]
	}
	return bytes.Contains(head, []byte("\x06Result")) && bytes.Contains(head, []byte("Latency")) &&
		bytes.Contains(head, []byte("Timestamp"))
}

func isJSONLines(head []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var probe map[string]json.RawMessage
	if json.Unmarshal(first, &probe) != nil {
		return false
	}
	for _, k := range []string{"code", "timestamp", "latency", "seq"} {
		if _, ok := probe[k]; !ok {
			return false
		}
	}
	return true
}

func (Results) Sniff(_ string, head []byte) bool { return isGob(head) || isJSONLines(head) }

func (Results) Import(name string, r io.Reader) (*result.Run, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(512)
	agg := newTally()
	var err error
	if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		err = readJSONLines(name, br, agg)
	} else {
		err = readGob(name, br, agg)
	}
	if err != nil {
		return nil, err
	}
	return agg.run(name)
}

// readGob decodes results until the stream ends; a stream that ends inside
// a value was cut, and the complete values before it are kept.
func readGob(name string, r io.Reader, agg *tally) error {
	dec := gob.NewDecoder(r)
	for i := 1; ; i++ {
		var h hit
		err := dec.Decode(&h)
		switch {
		case err == nil:
			agg.add(h)
		case errors.Is(err, io.EOF) && i > 1:
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF) && i > 1:
			agg.notes = append(agg.notes, fmt.Sprintf("file was cut: result %d is incomplete and was skipped; the %d before it were imported", i, i-1))
			return nil
		default:
			return &importer.SyntaxError{File: name, Msg: fmt.Sprintf("result %d: %v; expected a vegeta gob results stream (vegeta attack output)", i, err)}
		}
	}
}

func readJSONLines(name string, r *bufio.Reader, agg *tally) error {
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: reading line %d: %w", name, n, err)
		}
		complete := err == nil
		if len(b) == 0 {
			return nil
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			var h hit
			if jerr := json.Unmarshal(t, &h); jerr != nil {
				if !complete {
					agg.notes = append(agg.notes, fmt.Sprintf("file was cut: line %d is incomplete and was skipped; the lines before it were imported", n))
					return nil
				}
				return &importer.SyntaxError{File: name, Line: n, Msg: fmt.Sprintf("%v; expected a vegeta result as JSON ({\"code\":…,\"timestamp\":…,\"latency\":…})", jerr)}
			}
			agg.add(h)
		}
		if !complete {
			return nil
		}
	}
}

// maxSteps bounds per-target steps; further targets are pooled.
const (
	maxSteps  = 200
	otherStep = "(other targets)"
)

// tally folds results into a run.
type tally struct {
	first, last time.Time
	latency     *hist.Histogram
	total, fail int64
	steps       map[string]*result.Step
	order       []string
	errs        map[string]*result.ErrorClass
	errOrder    []string
	notes       []string
	pooled      bool
}

func newTally() *tally {
	return &tally{latency: hist.New(), steps: map[string]*result.Step{}, errs: map[string]*result.ErrorClass{}}
}

func (t *tally) add(h hit) {
	if t.first.IsZero() || h.Timestamp.Before(t.first) {
		t.first = h.Timestamp
	}
	if h.Timestamp.After(t.last) {
		t.last = h.Timestamp
	}
	t.total++
	t.latency.Record(h.Latency)
	step := t.step(h)
	step.Requests++
	step.Latency.Record(h.Latency)
	if !failedCode(int(h.Code)) && h.Error == "" {
		return
	}
	t.fail++
	step.Failed++
	class := errorClass(int(h.Code), h.Error)
	key := fmt.Sprintf("%s\x00%s\x00%d", class, step.Name, h.Code)
	e := t.errs[key]
	if e == nil {
		e = &result.ErrorClass{Class: class, Step: step.Name, Sample: statusSample(int(h.Code), h.Error)}
		t.errs[key] = e
		t.errOrder = append(t.errOrder, key)
	}
	e.Count++
}

func (t *tally) step(h hit) *result.Step {
	name := h.Method + " " + h.URL
	if h.Method == "" && h.URL == "" {
		name = "(unnamed)"
	}
	if s, ok := t.steps[name]; ok {
		return s
	}
	if len(t.order) >= maxSteps {
		t.pooled = true
		name = otherStep
		if s, ok := t.steps[name]; ok {
			return s
		}
	}
	s := &result.Step{Name: name, Latency: hist.New()}
	t.steps[name] = s
	t.order = append(t.order, name)
	return s
}

func (t *tally) run(name string) (*result.Run, error) {
	if t.total == 0 && len(t.notes) > 0 {
		return nil, &importer.SyntaxError{File: name, Msg: "file was cut before its first complete result"}
	}
	if t.total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "vegeta results stream holds no results"}
	}
	run := &result.Run{
		Started:  t.first,
		Window:   t.last.Sub(t.first).Seconds(),
		Latency:  t.latency,
		Requests: result.Requests{Total: t.total, Failed: t.fail},
		Metrics:  map[string]float64{},
		Notes:    t.notes,
	}
	for _, n := range t.order {
		run.Steps = append(run.Steps, *t.steps[n])
	}
	for _, k := range t.errOrder {
		run.Errors = append(run.Errors, *t.errs[k])
	}
	if t.pooled {
		run.Notes = append(run.Notes, fmt.Sprintf("more than %d distinct targets: the rest are pooled in step %q", maxSteps, otherStep))
	}
	finish(run)
	return run, nil
}
