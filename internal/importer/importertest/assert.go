package importertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func Approx(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

func MustImport(t *testing.T, f importer.Format, path string) *result.Run {
	t.Helper()
	run, err := ImportPath(f, path)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return run
}

// WantMetric checks a run's metric to histogram precision.
func WantMetric(t *testing.T, run *result.Run, key string, want float64) {
	t.Helper()
	switch got, ok := run.Metrics[key]; {
	case !ok:
		t.Errorf("metric %s absent, want %v", key, want)
	case !Approx(got, want, 0.002): // a histogram's 3 significant digits
		t.Errorf("metric %s = %v, want %v", key, got, want)
	}
}

func WantAbsent(t *testing.T, run *result.Run, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := run.Metrics[k]; ok {
			t.Errorf("metric %s = %v, want absent", k, v)
		}
	}
}

func HasNote(run *result.Run, fragment string) bool {
	return slices.ContainsFunc(run.Notes, func(n string) bool { return strings.Contains(n, fragment) })
}

func StepNames(run *result.Run) []string {
	var names []string
	for _, s := range run.Steps {
		names = append(names, s.Name)
	}
	return names
}

func WantErrors(t *testing.T, run *result.Run, want []result.ErrorClass) {
	t.Helper()
	if !slices.Equal(run.Errors, want) {
		t.Fatalf("errors = %+v, want %+v", run.Errors, want)
	}
}

// WantRequests checks which request counts a run has and their JSON: want
// is the "requests" object as the result file writes it, compacted
// (`{"total":400}`), or "" when the run counts no requests and the object
// must be absent.
func WantRequests(t *testing.T, run *result.Run, counted result.RequestCounts, want string) {
	t.Helper()
	if run.Requests.Counted != counted {
		t.Errorf("requests %+v: counted %b, want %b", run.Requests, run.Requests.Counted, counted)
	}
	var fields map[string]json.RawMessage
	data, err := json.Marshal(run)
	if err == nil {
		err = json.Unmarshal(data, &fields)
	}
	if err != nil {
		t.Fatalf("run does not encode: %v", err)
	}
	got, ok := fields["requests"]
	switch {
	case want == "" && ok:
		t.Errorf(`"requests": %s written for counts the file does not have`, got)
	case want == "":
	case !ok:
		t.Errorf(`"requests" absent, want %s`, want)
	default:
		var compact bytes.Buffer
		json.Compact(&compact, got)
		if compact.String() != want {
			t.Errorf(`"requests": %s, want %s`, compact.String(), want)
		}
	}
}

// WantRefused imports the file at path as `tailgate import` does (format
// "" detects it) and wants a typed refusal whose reason holds fragment.
func WantRefused(t *testing.T, path, format, fragment string) {
	t.Helper()
	_, err := importer.ImportFile(path, format)
	if reason, ok := Rejection(err); !ok || !strings.Contains(reason, fragment) {
		t.Errorf("%s: err = %v; want a refusal saying %q", path, err, fragment)
	}
}

// Rejection says why a typed import error rejected a file: "syntax: …" for
// a *importer.SyntaxError, "unsupported: …" for a *importer.Unsupported.
// ok is false for any other error, and for a typed one without a reason.
func Rejection(err error) (reason string, ok bool) {
	var syn *importer.SyntaxError
	var uns *importer.Unsupported
	switch {
	case errors.As(err, &syn) && syn.Msg != "":
		return "syntax: " + syn.Msg, true
	case errors.As(err, &uns) && uns.Reason != "":
		return "unsupported: " + uns.Reason, true
	}
	return "", false
}

// CheckOutcome is the contract every import honours, whatever the input:
// a typed error that says why (see Rejection), or a run with finite
// metrics that encodes as result JSON. It returns that JSON, nil on an
// error.
func CheckOutcome(t *testing.T, run *result.Run, err error) []byte {
	t.Helper()
	if err != nil {
		if _, ok := Rejection(err); !ok {
			t.Fatalf("error %T without a reason: %v", err, err)
		}
		return nil
	}
	if run == nil || run.Metrics == nil {
		t.Fatal("nil run or metrics without an error")
	}
	for k, v := range run.Metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("metric %s = %v", k, v)
		}
	}
	var buf bytes.Buffer
	if err := result.Encode(&buf, &result.File{Runs: []result.Run{*run}}); err != nil {
		t.Fatalf("run does not encode: %v", err)
	}
	return buf.Bytes()
}

func CheckRequests(t *testing.T, run *result.Run) {
	t.Helper()
	if run.Requests.Total <= 0 {
		t.Fatalf("run without requests: %+v", run.Requests)
	}
}

// CheckCounts holds a run built from per-request records to counts that
// add up: as many latencies as requests, and the steps and error classes
// summing to the run's requests and failures.
func CheckCounts(t *testing.T, run *result.Run) {
	t.Helper()
	CheckRequests(t, run)
	if run.Requests.Failed < 0 || run.Requests.Failed > run.Requests.Total {
		t.Fatalf("requests = %+v", run.Requests)
	}
	if run.Latency.Count() != run.Requests.Total {
		t.Fatalf("histogram holds %d, requests %d", run.Latency.Count(), run.Requests.Total)
	}
	var steps, failed, errs int64
	for _, s := range run.Steps {
		steps += s.Requests
		failed += s.Failed
	}
	for _, e := range run.Errors {
		errs += e.Count
	}
	if steps != run.Requests.Total || failed != run.Requests.Failed || errs != run.Requests.Failed {
		t.Fatalf("steps %d/%d, errors %d, run %+v", steps, failed, errs, run.Requests)
	}
	if run.Window < 0 {
		t.Fatalf("window %v", run.Window)
	}
}

// Fuzz feeds every format the same fuzzed bytes, as importer.Read would
// (Sniff, then Import, or ImportAll for a format of several runs), and
// holds each outcome to CheckOutcome; check, when not nil, adds what these
// formats promise of every run they return.
func Fuzz(f *testing.F, check func(*testing.T, *result.Run), formats ...importer.Format) {
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range formats {
			format.Sniff("fuzz", data)
			runs, err := importer.ImportAll(format, "fuzz", bytes.NewReader(data))
			if err != nil {
				CheckOutcome(t, nil, err)
				continue
			}
			if len(runs) == 0 {
				t.Fatalf("%s: no run and no error", format.Name())
			}
			for _, run := range runs {
				CheckOutcome(t, run, nil)
				if check != nil {
					check(t, run)
				}
			}
		}
	})
}

// AddSeeds adds these files to the fuzzer's corpus, each cut to max bytes
// (no cut when max is 0) so that mutation stays quick.
func AddSeeds(f *testing.F, max int, paths ...string) {
	f.Helper()
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			continue // testdata/fuzz, the corpus Go keeps itself
		}
		b := readFile(f, path)
		if max > 0 {
			b = b[:min(len(b), max)]
		}
		f.Add(b)
	}
}
