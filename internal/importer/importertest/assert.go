package importertest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// histogramRel is how close a value read back from a histogram (3
// significant digits) must be to the exact one, relative to it.
const histogramRel = 0.002

// Approx reports whether got is within rel (relative) of want.
func Approx(got, want, rel float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= rel*want
}

// MustImport reads the file at path with format f, failing the test on an
// error.
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
	got, ok := run.Metrics[key]
	if !ok {
		t.Errorf("metric %s absent, want %v", key, want)
		return
	}
	if !Approx(got, want, histogramRel) {
		t.Errorf("metric %s = %v, want %v", key, got, want)
	}
}

// WantAbsent checks that a run has none of these metrics.
func WantAbsent(t *testing.T, run *result.Run, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := run.Metrics[k]; ok {
			t.Errorf("metric %s = %v, want absent", k, v)
		}
	}
}

// HasNote reports whether one of the run's notes contains fragment.
func HasNote(run *result.Run, fragment string) bool {
	for _, n := range run.Notes {
		if strings.Contains(n, fragment) {
			return true
		}
	}
	return false
}

// StepNames lists the run's steps by name, in order.
func StepNames(run *result.Run) []string {
	var names []string
	for _, s := range run.Steps {
		names = append(names, s.Name)
	}
	return names
}

// FindStep returns the run's step with this name, failing the test when
// there is none.
func FindStep(t *testing.T, run *result.Run, name string) result.Step {
	t.Helper()
	for _, s := range run.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q in %d steps", name, len(run.Steps))
	return result.Step{}
}

// WantErrors checks a run's error classes, in order.
func WantErrors(t *testing.T, run *result.Run, want []result.ErrorClass) {
	t.Helper()
	if len(run.Errors) != len(want) {
		t.Fatalf("errors = %+v, want %+v", run.Errors, want)
	}
	for i := range want {
		if run.Errors[i] != want[i] {
			t.Errorf("error %d = %+v, want %+v", i, run.Errors[i], want[i])
		}
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
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatalf("run does not encode: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
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
