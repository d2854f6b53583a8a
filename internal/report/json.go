package report

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/result"
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
	// Runs are the gated metrics' figures per run, so that a report read
	// back (tailgate comment) charts what decided.
	Runs       *jsonRuns       `json:"runs,omitempty"`
	TargetLog  *jsonTargetLog  `json:"target_log,omitempty"`
	Statements []jsonStatement `json:"statements,omitempty"`
}

// jsonStatement is a statementChange.
type jsonStatement struct {
	Source string     `json:"source"`
	Query  string     `json:"query"`
	Base   [3]float64 `json:"base"`
	Head   [3]float64 `json:"head"`
}

// jsonTargetLog is TargetLogs (a conversion).
type jsonTargetLog struct {
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`
}

// jsonSequential is gate.Sequential, field for field (a conversion).
type jsonSequential struct {
	Pairs     int    `json:"pairs"`
	MinPairs  int    `json:"min_pairs"`
	MaxPairs  int    `json:"max_pairs"`
	Done      bool   `json:"done"`
	Reason    string `json:"reason"`
	MorePairs int    `json:"more_pairs"`
	Unit      string `json:"unit,omitempty"`
	RunPairs  int    `json:"run_pairs,omitempty"`
	Budget    int    `json:"budget,omitempty"`
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
	// Sequential A/B only: the estimate of worse, its repeated confidence
	// bounds and the pairs at the deciding look.
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
	// Runs are the step's figures by run (null where not run), for the
	// bounds of its change base → head.
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

// WriteJSON writes report.json (indented).
func WriteJSON(w io.Writer, in Input) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(toJSON(in))
}

func toJSON(in Input) jsonReport {
	v := in.Verdict
	r := jsonReport{
		Schema: JSONSchemaVersion, Benchmark: in.Name, Mode: in.Mode, BaselineSource: fitText(in.BaselineSource),
		Verdict: v.Outcome, Summary: fitText(headline(in, plainText)), Regressions: append([]string{}, v.Regressions...),
		HeadRuns: v.HeadRuns, BaselineRuns: v.BaseRuns, Metrics: []jsonMetric{}, Detectable: []jsonDetect{},
		Warnings: mapped(warningsOf(in), fitText), Notes: mapped(notesOf(in), fitText), Steps: []jsonStep{}, Errors: errorClasses(in.Head),
	}
	for i := range r.Errors {
		r.Errors[i].Sample = fitText(r.Errors[i].Sample)
	}
	for _, f := range v.Findings {
		r.Metrics = append(r.Metrics, jsonMetric{
			Key: f.Key, Label: f.Label, Unit: f.Unit, Gated: f.Gated,
			BaselineMedian: num(f.BaseMedian), HeadMedian: num(f.HeadMedian),
			Change: num(f.Change), ChangeUnit: changeUnit(f.Percent), Worse: num(f.Worse), P: num(f.P), Test: f.Test,
			Floor: num(f.Floor), FloorSource: f.FloorSource, Verdict: f.Outcome, Note: f.Note,
			HeadN: f.N, BaselineN: f.M,
			Estimate: num(f.Estimate), Lower: num(f.Lower), Upper: num(f.Upper), DecidedAt: f.DecidedAt,
			Center: f.Center, BaselineCenter: num(f.BaseCenter), HeadCenter: num(f.HeadCenter),
		})
	}
	if s := v.Sequential; s != nil {
		seq := jsonSequential(*s)
		r.Sequential = &seq
	}
	for _, d := range v.Detect {
		r.Detectable = append(r.Detectable, jsonDetect{Key: d.Key, Label: d.Label, Effect: num(d.Effect), Unit: d.Unit,
			Direction: d.Direction, Method: d.Method, Possible: d.Possible, Note: d.Note})
	}
	r.Steps = append(r.Steps, jsonSteps(in.Head)...)
	r.BaseSteps = jsonSteps(in.Base)
	r.Runs = gatedRuns(in)
	for _, c := range in.statementChanges(htmlStatements) {
		r.Statements = append(r.Statements, jsonStatement{Source: c.Source, Query: fitText(c.Query), Base: c.Base, Head: c.Head})
	}
	if l := jsonTargetLog(in.TargetLog); l != (jsonTargetLog{}) {
		r.TargetLog = &l
	}
	return r
}

// jsonSteps are the runs' per-step figures; nil when they have none.
func jsonSteps(runs []result.Run) []jsonStep {
	var out []jsonStep
	for _, s := range steps(runs) {
		js := jsonStep{stepFigures: s, P50: num(s.P50), P95: num(s.P95)}
		for i, c := range s.counts {
			var r *jsonStepRun
			if c != [2]int64{} || !math.IsNaN(s.runs[0][i]) {
				r = &jsonStepRun{Requests: c[0], Failed: c[1], P50: num(s.runs[0][i]), P95: num(s.runs[1][i])}
			}
			js.Runs = append(js.Runs, r)
		}
		out = append(out, js)
	}
	return out
}

// gatedRuns are the per-run figures of the gated metrics of both sides;
// nil when there are none. Missing and non-finite values are left out.
func gatedRuns(in Input) *jsonRuns {
	var keys []string
	for _, f := range in.Verdict.Findings {
		if f.Gated {
			keys = append(keys, f.Key)
		}
	}
	if len(keys) == 0 || (len(in.Base) == 0 && len(in.Head) == 0) {
		return nil
	}
	figures := func(runs []result.Run) []map[string]float64 {
		out := make([]map[string]float64, len(runs))
		for i, r := range runs {
			out[i] = map[string]float64{}
			for _, k := range keys {
				if v, ok := r.Value(k); ok && num(v) != nil {
					out[i][k] = v
				}
			}
		}
		return out
	}
	return &jsonRuns{Base: figures(in.Base), Head: figures(in.Head)}
}

// num maps NaN and ±Inf, which JSON cannot hold, to null.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
