package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// everyMetricKey is every metric key the runner can produce: the
// catalogued ones, and the footprint keys of a part (each figure) and of
// counters (a Prometheus name with capitals, and one of the longest names
// the config admits), as target.counters and target.parts produce them.
func everyMetricKey() []string {
	var keys []string
	for _, m := range result.Metrics {
		keys = append(keys, m.Key)
	}
	for _, part := range []string{result.TargetPart, "postgres", strings.Repeat("p", 32)} {
		for _, fig := range []string{"cpu_ms_per_iteration", "user_cpu_ms_per_iteration", "system_cpu_ms_per_iteration", "peak_rss_mb"} {
			keys = append(keys, result.PartKey(part, fig))
		}
		for _, count := range []string{result.FigureSyscR, result.FigureSyscW, result.FigureRChar, result.FigureWChar, result.FigureReadBytes,
			result.FigureWriteBytes, result.FigureVolCtxt, result.FigureMinorFaults, result.FigureMajorFaults} {
			keys = append(keys, result.PartKey(part, count+"_per_iteration"))
		}
	}
	keys = append(keys, result.CounterKey("pg", "calls"), result.CounterKey("app", "HTTP_requests_total"),
		result.CounterKey(strings.Repeat("s", 32), "G"+strings.Repeat("c", 127)))
	for _, k := range keys {
		if _, ok := result.Lookup(k); !ok {
			panic("not a metric key: " + k)
		}
	}
	return keys
}

// The fork-PR publisher (tailgate comment) reads every report tailgate
// action writes: an A/B report over every metric key and unit the runner
// can produce, every one gated (its finding, its detectable effect, its
// per-run figures on both sides), reads back, renders the same Markdown,
// and writes back the same file. Fixed seed.
func TestReadJSONReadsEveryMetricTheRunnerProduces(t *testing.T) {
	t.Parallel()
	keys := everyMetricKey()
	rng := rand.New(rand.NewPCG(35, 6))
	var base, head []result.Run
	for i := range 8 {
		b, h := result.Run{Index: i, Metrics: map[string]float64{}}, result.Run{Index: i, Metrics: map[string]float64{}}
		for j, k := range keys {
			v := float64(j+1) * (1 + 0.01*rng.NormFloat64())
			m, _ := result.Lookup(k)
			if m.Scale == result.Percent {
				v = 1 + 0.01*rng.NormFloat64()
			}
			b.Metrics[k], h.Metrics[k] = v, v*1.3
		}
		base, head = append(base, b), append(head, h)
	}
	v := gate.JudgeSequential(base, head, gate.Policy{Metrics: keys, Alpha: 0.05}, stats.SeqDesign{}, true, gate.SeqOptions{})
	in := Input{Name: "shop", Mode: "ab", Verdict: v, Base: base, Head: head}

	var js bytes.Buffer
	if err := WriteJSON(&js, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatalf("tailgate comment refuses the report tailgate action wrote: %v", err)
	}
	units := map[string]bool{}
	byKey := map[string]gate.Finding{}
	for _, f := range got.Verdict.Findings {
		byKey[f.Key] = f
		units[f.Unit] = true
	}
	for _, k := range keys {
		m, _ := result.Lookup(k)
		if f, ok := byKey[k]; !ok || f.Unit != m.Unit || f.Label != m.Label {
			t.Errorf("%s: read back as %+v, want unit %q label %q", k, f, m.Unit, m.Label)
		}
	}
	for _, u := range []string{"/s", "ms", "%", "MB", "/iteration"} {
		if !units[u] {
			t.Errorf("no metric of unit %q in the report: the test does not cover it", u)
		}
	}
	if a, b := Markdown(got), Markdown(in); a != b {
		t.Errorf("the comment renders differently from the report:\n--- read ---\n%.3000s\n--- written ---\n%.3000s", a, b)
	}
	var again bytes.Buffer
	if err := WriteJSON(&again, got); err != nil || again.String() != js.String() {
		t.Errorf("WriteJSON(ReadJSON(x)) != x (%v)", err)
	}
}

// A footprint key is read only in the form the runner writes: no other
// characters, a figure a part has, no part or source name the config
// would refuse.
func TestReadJSONRefusesForgedFootprintKeys(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"counter.pg.<img src=x>", "counter.pg", "part.db.secret_per_iteration", "part.DB.cpu_ms_per_iteration",
		"counter.pg.calls\n::error::x", "counter." + strings.Repeat("s", 33) + ".calls"} {
		js := mutated(t, func(m map[string]any) { metric0(m)["key"] = key })
		if _, err := ReadJSON(bytes.NewReader(js)); err == nil || !strings.Contains(err.Error(), "is not a metric key") {
			t.Errorf("key %q: %v, want refused", key, err)
		}
	}
}
