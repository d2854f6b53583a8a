package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// JSONSchemaVersion is the version of report.json written by this build (docs/report-json.md).
const JSONSchemaVersion = 1

// jsonReport is report.json (docs/report-json.md). Figures that do not exist are null, never 0.
type jsonReport struct {
	Schema         int             `json:"schema"`
	Benchmark      string          `json:"benchmark"`
	Mode           string          `json:"mode,omitempty"`
	BaselineSource string          `json:"baseline_source,omitempty"`
	Verdict        gate.Outcome    `json:"verdict"`
	Summary        string          `json:"summary"`
	Regressions    []string        `json:"regressions"`
	HeadRuns       int             `json:"head_runs"`
	BaselineRuns   int             `json:"baseline_runs"`
	Metrics        []jsonMetric    `json:"metrics"`
	Detectable     []jsonDetect    `json:"detectable"`
	Warnings       []string        `json:"warnings"`
	Notes          []string        `json:"notes"`
	Steps          []jsonStep      `json:"steps"`
	BaseSteps      []jsonStep      `json:"base_steps,omitempty"`
	Errors         []errorFigures  `json:"errors"`
	Sequential     *jsonSequential `json:"sequential,omitempty"`
	// Runs are the gated metrics' figures per run, so that a report read back (tailgate comment) charts what decided.
	Runs       *jsonRuns         `json:"runs,omitempty"`
	TargetLog  *TargetLogs       `json:"target_log,omitempty"`
	Statements []statementChange `json:"statements,omitempty"`
}

// jsonSequential is gate.Sequential, field for field (a conversion).
type jsonSequential struct {
	Blocks     int      `json:"pairs"`
	MinBlocks  int      `json:"min_pairs"`
	MaxBlocks  int      `json:"max_pairs"`
	Done       bool     `json:"done"`
	Why        gate.Why `json:"-"`
	Reason     string   `json:"reason"`
	MoreBlocks int      `json:"more_pairs"`
	Unit       string   `json:"unit,omitempty"`
	RunPairs   int      `json:"run_pairs,omitempty"`
	Budget     int      `json:"budget,omitempty"`
}

// jsonRuns are the per-run figures of the gated metrics of each side, in
// run order (pair order in A/B): one object of metric key → value per run.
type jsonRuns struct {
	Base []map[string]float64 `json:"base"`
	Head []map[string]float64 `json:"head"`
}

type jsonMetric struct {
	Key            string             `json:"key"`
	Label          string             `json:"label"`
	Unit           string             `json:"unit"`
	Gated          bool               `json:"gated"`
	BaselineMedian *float64           `json:"baseline_median"`
	HeadMedian     *float64           `json:"head_median"`
	Change         *float64           `json:"change"`
	ChangeUnit     string             `json:"change_unit"`
	Worse          *float64           `json:"worse"`
	P              *float64           `json:"p"`
	Test           string             `json:"test,omitempty"`
	Floor          *float64           `json:"floor"`
	FloorSource    gate.FloorSource   `json:"floor_source"`
	Verdict        gate.MetricOutcome `json:"verdict"`
	Note           string             `json:"note,omitempty"`
	HeadN          int                `json:"head_n"`
	BaselineN      int                `json:"baseline_n"`
	// Sequential A/B only: the estimate of worse, its repeated confidence bounds and the pairs at the deciding look.
	Estimate  *float64 `json:"estimate,omitempty"`
	Lower     *float64 `json:"lower,omitempty"`
	Upper     *float64 `json:"upper,omitempty"`
	DecidedAt int      `json:"decided_at,omitempty"`
	// Sequential A/B only: what change is made of (center "geometric
	// mean", or "mean" for rates) on each side over the judged pairs.
	Center         string   `json:"center,omitempty"`
	BaselineCenter *float64 `json:"baseline_center,omitempty"`
	HeadCenter     *float64 `json:"head_center,omitempty"`
}

type jsonDetect struct {
	Key       string   `json:"key"`
	Label     string   `json:"label"`
	Effect    *float64 `json:"effect"`
	Unit      string   `json:"unit"`
	Direction string   `json:"direction"`
	Method    string   `json:"method"`
	Possible  bool     `json:"possible"`
	Note      string   `json:"note,omitempty"`
}

type jsonStep struct {
	stepFigures
	P50 *float64 `json:"p50_ms"`
	P95 *float64 `json:"p95_ms"`
	// Runs are the step's figures by run (null where not run), for the bounds of its change base → head.
	Runs []*jsonStepRun `json:"runs,omitempty"`
}

type jsonStepRun struct {
	Requests int64    `json:"requests"`
	Failed   int64    `json:"failed"`
	P50      *float64 `json:"p50_ms"`
	P95      *float64 `json:"p95_ms"`
}

// fitText is s as ReadJSON accepts a text, so that what tailgate writes
// `tailgate comment` reads: forbidden runes as U+FFFD, clipped.
func fitText(s string) string {
	s = strings.Map(func(r rune) rune {
		if forbiddenRune(r) {
			return utf8.RuneError
		}
		return r
	}, s)
	return printable.Clip(s, maxTextRunes)
}

func WriteJSON(w io.Writer, in Input) error {
	v := in.Verdict
	r := jsonReport{
		Schema: JSONSchemaVersion, Benchmark: in.Name, Mode: in.Mode, BaselineSource: fitText(in.BaselineSource),
		Verdict: v.Outcome, Summary: fitText(headline(in, plainText)), Regressions: append([]string{}, v.Regressions...),
		HeadRuns: v.HeadRuns, BaselineRuns: v.BaseRuns, Warnings: mapped(warningsOf(in), fitText), Notes: mapped(notesOf(in), fitText),
		Steps: append([]jsonStep{}, jsonSteps(in.Head)...), BaseSteps: jsonSteps(in.Base), Runs: gatedRuns(in),
		Errors: mapped(errorClasses(in.Head), func(e errorFigures) errorFigures { e.Sample = fitText(e.Sample); return e }),
		Metrics: mapped(v.Findings, func(f gate.Finding) jsonMetric {
			return jsonMetric{Key: f.Key, Label: f.Label, Unit: f.Unit, Gated: f.Gated,
				BaselineMedian: num(f.BaseMedian), HeadMedian: num(f.HeadMedian),
				Change: num(f.Change), ChangeUnit: changeUnit(f.Percent), Worse: num(f.Worse), P: num(f.P), Test: f.Test,
				Floor: num(f.Floor), FloorSource: f.FloorSource, Verdict: f.Outcome, Note: findingNote(f), HeadN: f.N, BaselineN: f.M,
				Estimate: num(f.Estimate), Lower: num(f.Lower), Upper: num(f.Upper), DecidedAt: f.DecidedAt,
				Center: f.Center, BaselineCenter: num(f.BaseCenter), HeadCenter: num(f.HeadCenter)}
		}),
		Detectable: mapped(v.Detect, func(d gate.Detectable) jsonDetect {
			return jsonDetect{Key: d.Key, Label: d.Label, Effect: num(d.Effect), Unit: d.Unit, Direction: d.Direction, Method: d.Method, Possible: d.Possible, Note: detectNote(d)}
		}),
	}
	if s := v.Sequential; s != nil {
		seq := jsonSequential(*s)
		seq.Reason, r.Sequential = StopReason(s), &seq
	}
	if st := in.statementChanges(htmlStatements); len(st) > 0 {
		r.Statements = mapped(st, func(c statementChange) statementChange { c.Query = fitText(c.Query); return c })
	}
	if l := in.TargetLog; l != (TargetLogs{}) {
		r.TargetLog = &l
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func jsonSteps(runs []result.Run) []jsonStep {
	return mapped(steps(runs), func(s stepFigures) jsonStep {
		js := jsonStep{stepFigures: s, P50: num(s.P50), P95: num(s.P95)}
		for i, c := range s.counts {
			var r *jsonStepRun
			if c != [2]int64{} || !math.IsNaN(s.runs[0][i]) {
				r = &jsonStepRun{Requests: c[0], Failed: c[1], P50: num(s.runs[0][i]), P95: num(s.runs[1][i])}
			}
			js.Runs = append(js.Runs, r)
		}
		return js
	})
}

// gatedRuns are the per-run figures of the gated metrics of both sides;
// nil when there are none. Missing and non-finite values are left out.
func gatedRuns(in Input) *jsonRuns {
	gated, _ := splitGated(in.Verdict.Findings)
	keys := mapped(gated, func(f gate.Finding) string { return f.Key })
	if len(keys) == 0 || (len(in.Base) == 0 && len(in.Head) == 0) {
		return nil
	}
	figures := func(runs []result.Run) []map[string]float64 {
		return mapped(runs, func(r result.Run) map[string]float64 {
			out := map[string]float64{}
			for _, k := range keys {
				if v, ok := r.Value(k); ok && num(v) != nil {
					out[k] = v
				}
			}
			return out
		})
	}
	return &jsonRuns{Base: figures(in.Base), Head: figures(in.Head)}
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// MaxJSONBytes bounds a report.json ReadJSON accepts: an untrusted artifact must not exhaust memory.
const MaxJSONBytes = 1 << 20

// Caps on what a report may hold; far above anything tailgate writes.
const (
	maxNameRunes  = 100
	maxLabelRunes = 200 // a counter's label: its source (32) and name (128)
	maxTextRunes  = 2000
	maxListItems  = 100
	maxRowItems   = 1000 // steps and error classes
	maxRuns       = 1_000_000
	maxCount      = 1 << 53 // exact in a float64, as JSON readers may hold it
)

// ReadJSON decodes a report.json back into an Input so that tailgate renders the Markdown itself. The file is untrusted
// (a fork PR's artifact): bounded, of this schema, known fields and values, inert text, consistent verdicts.
func ReadJSON(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return Input{}, fmt.Errorf("read the report: %w", err)
	}
	if len(data) > MaxJSONBytes {
		return Input{}, fmt.Errorf("the report is larger than %d bytes: not a report tailgate wrote", MaxJSONBytes)
	}
	var rep jsonReport
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return Input{}, fmt.Errorf("decode the report: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Input{}, errors.New("decode the report: data after the JSON object")
	}
	if rep.Schema != JSONSchemaVersion {
		return Input{}, fmt.Errorf("report schema %d is not supported: this tailgate reads schema %d (use the same tailgate version to write and read it)", rep.Schema, JSONSchemaVersion)
	}
	var c checker
	c.report(rep)
	if len(c.errs) > 0 { // on one line: the reason a report is refused is one line of the log
		return Input{}, errors.New("invalid report: " + strings.Join(c.errs, "; "))
	}
	return fromJSON(rep), nil
}

type checker struct{ errs []string }

func (c *checker) add(path, format string, args ...any) {
	if len(c.errs) < 20 {
		c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
	}
}

func each[T any](c *checker, path string, items []T, most int, check func(string, T)) {
	if len(items) > most {
		c.add(path, "has %d entries, more than %d", len(items), most)
	}
	for i, it := range items {
		check(fmt.Sprintf("%s[%d]", path, i), it)
	}
}

var (
	// sourcePattern is a part's or a counter source's name as the config admits it.
	sourcePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	keyPattern    = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)
	// footprintKey is result.PartKey or result.CounterKey's form.
	footprintKey = regexp.MustCompile(`^(part|counter)\.[a-z][a-z0-9_]{0,31}\.[A-Za-z_][A-Za-z0-9_]{0,127}$`)

	outcomes       = []string{string(gate.Pass), string(gate.Regression), string(gate.Inconclusive)}
	metricOutcomes = []string{string(gate.MetricPass), string(gate.MetricRegression), string(gate.WithinNoise),
		string(gate.Improvement), string(gate.MetricInconclusive), string(gate.NotAvailable), string(gate.NotGated),
		string(gate.SetByLoad), string(gate.WithinMinEffect), string(gate.Undecided)}
	floorSources = []string{string(gate.FromCalibration), string(gate.FromDefault), string(gate.FromConfig), string(gate.FromJob),
		string(gate.FromMinEffect), string(gate.NoFloor)}
	tests       = []string{"", stats.TestExact, stats.TestApprox, stats.TestZ, stats.TestTPrediction, stats.TestSignedRank, stats.TestSequential, stats.TestExactCount}
	modes       = []string{"", "check", "compare", "ab", "demo"}
	metricUnits = []string{"", "/s", "ms", "%", "MB", "/iteration"}
	changeUnits = []string{"%", "pp"}
	centers     = []string{"", "geometric mean", "mean"}
	units       = []string{"", "pair", "block"}
	directions  = []string{"drop", "rise"}
	methods     = []string{stats.MethodFormula, stats.MethodMonteCarlo, stats.MethodPairs, stats.MethodSequential}
	errorKinds  = []string{result.ErrStatus, result.ErrExpect, result.ErrTimeout, result.ErrConnection}
)

func (c *checker) report(r jsonReport) {
	c.name("benchmark", r.Benchmark, maxNameRunes, true)
	c.enum("mode", r.Mode, modes)
	c.text("baseline_source", r.BaselineSource, maxTextRunes, false)
	c.enum("verdict", string(r.Verdict), outcomes)
	c.text("summary", r.Summary, maxTextRunes, false)
	c.count("head_runs", int64(r.HeadRuns), maxRuns)
	c.count("baseline_runs", int64(r.BaselineRuns), maxRuns)
	text := func(path, s string) { c.text(path, s, maxTextRunes, false) }
	each(c, "warnings", r.Warnings, maxListItems, text)
	each(c, "notes", r.Notes, maxListItems, text)
	each(c, "metrics", r.Metrics, maxListItems, c.metric)
	each(c, "detectable", r.Detectable, maxListItems, c.detect)
	each(c, "steps", r.Steps, maxRowItems, c.step)
	each(c, "base_steps", r.BaseSteps, maxRowItems, c.step)
	each(c, "errors", r.Errors, maxRowItems, c.errorClass)
	if s := r.Sequential; s != nil {
		c.sequential("sequential", *s)
	}
	if r.Runs != nil {
		each(c, "runs.base", r.Runs.Base, maxRowItems, c.runs)
		each(c, "runs.head", r.Runs.Head, maxRowItems, c.runs)
	}
	each(c, "statements", r.Statements, htmlStatements, c.statement)
	if l := r.TargetLog; l != nil {
		if *l == (TargetLogs{}) {
			c.add("target_log", "names no file")
		}
		for i, path := range []string{l.Base, l.Head} {
			if path != "" {
				c.targetLogPath("target_log."+[]string{"base", "head"}[i], path)
			}
		}
	}
	c.regressions(r)
}

func (c *checker) statement(path string, s statementChange) {
	if !sourcePattern.MatchString(s.Source) {
		c.add(path+".source", "%q is not a counter source name (lower-case letters, digits and _)", clip(s.Source))
	}
	c.text(path+".query", s.Query, maxTextRunes, true)
	for j, v := range append(s.Base[:], s.Head[:]...) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			c.add(fmt.Sprintf("%s.%s[%d]", path, map[bool]string{true: "base", false: "head"}[j < 3], j%3), "%v is not a count ≥ 0", v)
		}
	}
}

func (c *checker) sequential(path string, s jsonSequential) {
	for name, n := range map[string]int{"pairs": s.Blocks, "min_pairs": s.MinBlocks, "max_pairs": s.MaxBlocks, "more_pairs": s.MoreBlocks,
		"run_pairs": s.RunPairs, "budget": s.Budget} {
		c.count(path+"."+name, int64(n), maxRuns)
	}
	c.enum(path+".unit", s.Unit, units)
	if s.MinBlocks > s.MaxBlocks {
		c.add(path+".min_pairs", "%d is above max_pairs %d", s.MinBlocks, s.MaxBlocks)
	}
	c.text(path+".reason", s.Reason, maxTextRunes, false)
}

// runs checks the per-run figures of one side: each run's known metric keys and finite values.
func (c *checker) runs(path string, figures map[string]float64) {
	for _, key := range slices.Sorted(maps.Keys(figures)) {
		at := path + "." + clip(key)
		if _, ok := result.Lookup(key); !ok || !(keyPattern.MatchString(key) || footprintKey.MatchString(key)) {
			c.add(at, "is not a metric tailgate knows")
			continue
		}
		v := figures[key]
		c.finite(at, &v)
	}
}

func (c *checker) metric(path string, m jsonMetric) {
	c.key(path+".key", m.Key)
	c.name(path+".label", m.Label, maxLabelRunes, true)
	c.enum(path+".unit", m.Unit, metricUnits)
	c.enum(path+".change_unit", m.ChangeUnit, changeUnits)
	c.enum(path+".test", m.Test, tests)
	c.enum(path+".floor_source", string(m.FloorSource), floorSources)
	c.enum(path+".verdict", string(m.Verdict), metricOutcomes)
	c.enum(path+".center", m.Center, centers)
	c.text(path+".note", m.Note, maxTextRunes, false)
	c.count(path+".head_n", int64(m.HeadN), maxRuns)
	c.count(path+".baseline_n", int64(m.BaselineN), maxRuns)
	c.count(path+".decided_at", int64(m.DecidedAt), maxRuns)
	for name, v := range map[string]*float64{"baseline_median": m.BaselineMedian, "head_median": m.HeadMedian,
		"change": m.Change, "worse": m.Worse, "floor": m.Floor, "estimate": m.Estimate, "lower": m.Lower, "upper": m.Upper,
		"baseline_center": m.BaselineCenter, "head_center": m.HeadCenter} {
		c.finite(path+"."+name, v)
	}
	if c.finite(path+".p", m.P) && m.P != nil && (*m.P < 0 || *m.P > 1) {
		c.add(path+".p", "%g is not a probability in [0, 1]", *m.P)
	}
}

func (c *checker) detect(path string, d jsonDetect) {
	c.key(path+".key", d.Key)
	c.name(path+".label", d.Label, maxLabelRunes, false)
	c.finite(path+".effect", d.Effect)
	c.enum(path+".unit", d.Unit, changeUnits)
	c.enum(path+".direction", d.Direction, directions)
	c.enum(path+".method", d.Method, methods)
	c.text(path+".note", d.Note, maxTextRunes, false)
}

func (c *checker) step(path string, s jsonStep) {
	c.name(path+".name", s.Name, maxLabelRunes*2, true)
	c.count(path+".requests", s.Requests, maxCount)
	c.count(path+".failed", s.Failed, maxCount)
	if s.Failed > s.Requests {
		c.add(path+".failed", "%d failed of %d requests", s.Failed, s.Requests)
	}
	c.finite(path+".p50_ms", s.P50)
	c.finite(path+".p95_ms", s.P95)
	each(c, path+".runs", s.Runs, maxRuns, func(path string, r *jsonStepRun) {
		if r != nil {
			c.step(path, jsonStep{stepFigures: stepFigures{Name: s.Name, Requests: r.Requests, Failed: r.Failed}, P50: r.P50, P95: r.P95})
		}
	})
}

func (c *checker) errorClass(path string, e errorFigures) {
	c.enum(path+".class", e.Class, errorKinds)
	c.name(path+".step", e.Step, maxLabelRunes*2, false)
	c.count(path+".count", e.Count, maxCount)
	c.text(path+".sample", e.Sample, maxTextRunes, false)
}

func (c *checker) regressions(r jsonReport) {
	var want []string
	for _, m := range r.Metrics {
		if m.Gated && m.Verdict == gate.MetricRegression {
			want = append(want, m.Key)
		}
	}
	if !slices.Equal(want, r.Regressions) {
		c.add("regressions", "%q does not list the gated metrics whose verdict is regression (%q)", r.Regressions, want)
	}
	if (r.Verdict == gate.Regression) != (len(want) > 0) {
		c.add("verdict", "%q disagrees with the metrics (%d gated regressions)", r.Verdict, len(want))
	}
}

// key checks a metric key: catalogued, or a footprint key tailgate makes.
func (c *checker) key(path, s string) {
	if _, known := result.Lookup(s); !keyPattern.MatchString(s) && (!known || !footprintKey.MatchString(s)) {
		c.add(path, "%q is not a metric key (lower-case letters, digits and _; or part.<part>.<figure>, counter.<source>.<counter>)", clip(s))
	}
}

func (c *checker) enum(path, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		c.add(path, "%q is not one of %q", clip(s), allowed)
	}
}

func (c *checker) text(path, s string, maxRunes int, required bool) {
	c.bounded(path, s, maxRunes, required)
	if i := strings.IndexFunc(s, forbiddenRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		c.add(path, "contains the control character %U at byte %d", r, i)
	}
}

func (c *checker) name(path, s string, maxRunes int, required bool) {
	c.bounded(path, s, maxRunes, required)
	if err := printable.Check(s); err != nil {
		c.add(path, "%v", err)
	}
}

func (c *checker) bounded(path, s string, maxRunes int, required bool) {
	switch n := utf8.RuneCountInString(s); {
	case required && strings.TrimSpace(s) == "":
		c.add(path, "is empty")
	case n > maxRunes:
		c.add(path, "is %d characters long, more than %d", n, maxRunes)
	}
}

func (c *checker) count(path string, n, maxN int64) {
	if n < 0 || n > maxN {
		c.add(path, "%d is outside [0, %d]", n, maxN)
	}
}

// finite reports whether v is null or a finite number. JSON cannot spell
// NaN or infinities, so this guards Inputs built by other decoders.
func (c *checker) finite(path string, v *float64) bool {
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
		c.add(path, "is not a finite number")
		return false
	}
	return true
}

// forbiddenRune rejects control characters other than tab and line breaks,
// and the bidirectional overrides that make text read differently than it is.
func forbiddenRune(r rune) bool {
	return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

func clip(s string) string { return printable.Clip(s, 41) }

// fromJSON turns a checked report back into the Input it was written from, as far as the reports need it.
func fromJSON(r jsonReport) Input {
	v := gate.Verdict{Outcome: r.Verdict, Regressions: r.Regressions, HeadRuns: r.HeadRuns, BaseRuns: r.BaselineRuns, Sequential: (*gate.Sequential)(r.Sequential)}
	if len(r.Warnings) > 0 {
		v.Warnings = mapped(r.Warnings, gate.WarningOf)
	}
	byKey := map[string]jsonMetric{}
	for _, m := range r.Metrics {
		byKey[m.Key] = m
		v.Findings = append(v.Findings, gate.Finding{Key: m.Key, Label: m.Label, Unit: m.Unit, Percent: m.ChangeUnit == "pp", Gated: m.Gated,
			BaseMedian: orNaN(m.BaselineMedian), HeadMedian: orNaN(m.HeadMedian), Change: orNaN(m.Change), Worse: orNaN(m.Worse), P: orNaN(m.P),
			Test: m.Test, Floor: orNaN(m.Floor), FloorSource: m.FloorSource, Outcome: m.Verdict, Note: m.Note, N: m.HeadN, M: m.BaselineN,
			Estimate: orNaN(m.Estimate), Lower: orNaN(m.Lower), Upper: orNaN(m.Upper), DecidedAt: m.DecidedAt,
			Center: m.Center, BaseCenter: orNaN(m.BaselineCenter), HeadCenter: orNaN(m.HeadCenter)})
	}
	for _, d := range r.Detectable {
		v.Detect = append(v.Detect, gate.Detectable{Key: d.Key, Label: cmp.Or(d.Label, byKey[d.Key].Label, d.Key), N: byKey[d.Key].HeadN,
			M: byKey[d.Key].BaselineN, Effect: orNaN(d.Effect), Unit: d.Unit, Direction: d.Direction, Method: d.Method, Possible: d.Possible, Note: d.Note})
	}
	runs := cmp.Or(r.Runs, &jsonRuns{})
	return Input{Name: r.Benchmark, Mode: r.Mode, BaselineSource: r.BaselineSource, Verdict: v, Notes: r.Notes,
		Head: runsFromJSON(runs.Head, r.Steps, r.Errors), Base: runsFromJSON(runs.Base, r.BaseSteps, nil),
		TargetLog: *cmp.Or(r.TargetLog, &TargetLogs{}), statements: r.Statements}
}

// runsFromJSON rebuilds one side's runs: the gated figures by run, each run's steps (by run where
// the file has them, else one run of sums) and the error classes (in the first run).
func runsFromJSON(figures []map[string]float64, steps []jsonStep, errs []errorFigures) []result.Run {
	n := len(figures)
	if n == 0 && len(steps)+len(errs) > 0 {
		n = 1
		for _, s := range steps {
			n = max(n, len(s.Runs))
		}
	}
	if n == 0 {
		return nil
	}
	runs := make([]result.Run, n)
	for i, m := range figures {
		runs[i].Index, runs[i].Metrics = i, m
	}
	for _, s := range steps {
		each := s.Runs
		if len(each) == 0 {
			each = []*jsonStepRun{{Requests: s.Requests, Failed: s.Failed, P50: s.P50, P95: s.P95}}
		}
		for i, r := range each[:min(len(each), n)] {
			if r == nil {
				continue
			}
			st := result.Step{Name: s.Name, Requests: r.Requests, Failed: r.Failed, Metrics: map[string]float64{}}
			for key, v := range map[string]*float64{result.LatencyP50: r.P50, result.LatencyP95: r.P95} {
				if v != nil {
					st.Metrics[key] = *v
				}
			}
			runs[i].Steps = append(runs[i].Steps, st)
		}
	}
	for _, e := range errs {
		runs[0].Errors = append(runs[0].Errors, result.ErrorClass{Class: e.Class, Step: e.Step, Count: e.Count, Sample: e.Sample})
	}
	return runs
}

func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}
