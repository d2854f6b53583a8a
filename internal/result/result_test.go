package result

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
)

func sampleFile() *File {
	h := hist.New()
	for i := range 200 {
		h.Record(time.Duration(1+i%50) * time.Millisecond)
	}
	run := Run{
		Index: 0, Started: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), Window: 4, Model: "open", OfferedRate: 50,
		Iterations: Iterations{Offered: 200, Started: 190, Completed: 188, Succeeded: 180, Dropped: 10, Counted: CountAll},
		Requests:   Requests{Total: 752, Failed: 8, Counted: CountRequests},
		Errors:     []ErrorClass{{Class: ErrStatus, Step: "assign", Count: 8, Sample: "409 INVALID ACTION"}},
		Steps:      []Step{{Name: "create", Requests: 188, Failed: 0, Latency: h}},
		Latency:    h, IterationLatency: h.Clone(),
		Resources: &Resources{CPUSeconds: 1.5, PeakRSSBytes: 64 << 20},
		Notes:     []string{"a note"},
	}
	run.Summarize()
	return &File{Schema: SchemaVersion, Benchmark: "shop", DefinitionHash: "sha256:abc", Source: "tailgate",
		Created: run.Started, Env: Env{CPUModel: "CPU", Cores: 2, OS: "linux", Arch: "amd64", GoVersion: "go1.26", TailgateVersion: "dev"},
		Runs: []Run{run}}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	want := sampleFile()
	var buf bytes.Buffer
	if err := Encode(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(&buf)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	w, g := want.Runs[0], got.Runs[0]
	if !reflect.DeepEqual(g.Metrics, w.Metrics) || !reflect.DeepEqual(g.Iterations, w.Iterations) ||
		!reflect.DeepEqual(g.Requests, w.Requests) || !reflect.DeepEqual(g.Errors, w.Errors) ||
		!reflect.DeepEqual(g.Resources, w.Resources) || !reflect.DeepEqual(g.Notes, w.Notes) {
		t.Errorf("run differs after a round trip:\n got %+v\nwant %+v", g, w)
	}
	if got.Benchmark != want.Benchmark || got.DefinitionHash != want.DefinitionHash || got.Env != want.Env || !got.Created.Equal(want.Created) {
		t.Errorf("file header differs: got %+v", got)
	}
	for name, pair := range map[string][2]*hist.Histogram{"latency": {w.Latency, g.Latency}, "step latency": {w.Steps[0].Latency, g.Steps[0].Latency}} {
		a, b := pair[0], pair[1]
		if b == nil || a.Count() != b.Count() || a.Quantile(0.95) != b.Quantile(0.95) || a.Max() != b.Max() {
			t.Errorf("%s histogram differs after a round trip", name)
		}
	}
	if g.ScheduleLag != nil {
		t.Errorf("an absent histogram came back as %v", g.ScheduleLag)
	}
}

func TestWriteFileReadFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "result.json")
	f := sampleFile()
	f.Schema = 0 // WriteFile stamps it
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != SchemaVersion || len(got.Runs) != 1 {
		t.Errorf("read schema %d with %d runs, want %d and 1", got.Schema, len(got.Runs), SchemaVersion)
	}
}

func TestDecodeRefusesOtherSchemas(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`{"schema": 2, "runs": []}`, `{"schema": 0, "runs": []}`, `{"runs": []}`} {
		_, err := Decode(strings.NewReader(doc))
		if !errors.Is(err, ErrSchema) {
			t.Errorf("Decode(%s) = %v, want ErrSchema", doc, err)
		}
	}
	if _, err := Decode(strings.NewReader("not json")); err == nil || errors.Is(err, ErrSchema) {
		t.Errorf("Decode(garbage) = %v, want a parse error", err)
	}
}

// A run that carries no metrics map decodes to an empty one: lookups work
// and report the metric as absent.
func TestDecodeGivesEveryRunAMetricsMap(t *testing.T) {
	t.Parallel()
	f, err := Decode(strings.NewReader(`{"schema": 1, "runs": [{"index": 0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Runs[0].Metrics == nil {
		t.Fatal("nil metrics map")
	}
	if _, ok := f.Runs[0].Value(IterationsPerSec); ok {
		t.Error("an unmeasured metric reads as present")
	}
}

// Summarize leaves out every metric whose inputs the run lacks: a
// measurement not taken is absent, never zero.
func TestSummarizeLeavesAbsentMetricsAbsent(t *testing.T) {
	t.Parallel()
	r := Run{} // an imported run that knew nothing
	r.Summarize()
	if len(r.Metrics) != 0 {
		t.Errorf("an empty run got metrics %v", r.Metrics)
	}
	r = Run{Window: 2, Requests: Requests{Total: 10, Failed: 1, Counted: CountRequests}} // counts only, no model, no histograms
	r.Summarize()
	for _, key := range []string{IterationsPerSec, LatencyP95, LifecycleSuccess, DroppedPct, CPUPerIteration, PeakRSS, ScheduleLagP99} {
		if v, ok := r.Metrics[key]; ok {
			t.Errorf("%s = %v, want absent (nothing measured it)", key, v)
		}
	}
	if r.Metrics[RequestsPerSec] != 5 || r.Metrics[RequestErrorPct] != 10 {
		t.Errorf("requests/s %v and errors %v %%, want 5 and 10", r.Metrics[RequestsPerSec], r.Metrics[RequestErrorPct])
	}
}

func TestSummarizeKeepsImportedValues(t *testing.T) {
	t.Parallel()
	r := Run{Window: 10, Requests: Requests{Total: 100, Counted: CountRequests}, Metrics: map[string]float64{RequestsPerSec: 12.5, LatencyP95: 55.5}}
	r.Summarize()
	if r.Metrics[RequestsPerSec] != 12.5 || r.Metrics[LatencyP95] != 55.5 {
		t.Errorf("imported figures were overwritten: %v", r.Metrics)
	}
}

func TestSummarizeFromCountsAndHistograms(t *testing.T) {
	t.Parallel()
	r := sampleFile().Runs[0]
	m := r.Metrics
	for key, want := range map[string]float64{
		IterationsPerSec: 188.0 / 4, RequestsPerSec: 752.0 / 4, RequestErrorPct: 100 * 8.0 / 752,
		LifecycleSuccess: 100 * 180.0 / 188, DroppedPct: 100 * 10.0 / 200, CPUPerIteration: 1500.0 / 188, PeakRSS: 64,
	} {
		if got, ok := m[key]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	if p95 := m[LatencyP95]; p95 < 45 || p95 > 51 {
		t.Errorf("p95 = %v ms, want about 48 (values 1…50 ms)", p95)
	}
}

func TestFingerprintIsTheMachineNotTheBuild(t *testing.T) {
	t.Parallel()
	a := Env{CPUModel: "CPU", Cores: 2, OS: "linux", Arch: "amd64", GoVersion: "go1.26", TailgateVersion: "v1"}
	b := a
	b.GoVersion, b.TailgateVersion = "go1.27", "v2"
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("versions changed the fingerprint: %q vs %q", a.Fingerprint(), b.Fingerprint())
	}
	if got, want := a.Fingerprint(), "CPU; 2 cores; linux/amd64"; got != want {
		t.Errorf("Fingerprint = %q, want %q", got, want)
	}
	c := a
	c.Cores = 4
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("another core count gave the same fingerprint")
	}
}

func TestValuesLeaveOutRunsWithoutTheMetric(t *testing.T) {
	t.Parallel()
	runs := []Run{{Metrics: map[string]float64{LatencyP95: 3}}, {Metrics: map[string]float64{}}, {Metrics: map[string]float64{LatencyP95: 0}}}
	if got := Values(runs, LatencyP95); !reflect.DeepEqual(got, []float64{3, 0}) {
		t.Errorf("Values = %v, want [3 0]", got)
	}
	if got := Values(runs, IterationsPerSec); got != nil {
		t.Errorf("Values of a metric no run has = %v, want none", got)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	m, ok := Lookup(LatencyP95)
	if !ok || m.Better != LowerIsBetter || m.Scale != Ratio || m.Unit != "ms" {
		t.Errorf("Lookup(p95) = %+v, %v", m, ok)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("an unknown key was found")
	}
}
