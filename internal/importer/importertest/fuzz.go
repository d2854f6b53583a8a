package importertest

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

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

// CheckRequests holds a run to having requests.
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
			runs, err := importRuns(format, data)
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

func importRuns(format importer.Format, data []byte) ([]*result.Run, error) {
	if s, ok := format.(importer.Several); ok {
		return s.ImportAll("fuzz", bytes.NewReader(data))
	}
	run, err := format.Import("fuzz", bytes.NewReader(data))
	return []*result.Run{run}, err
}

// AddSeeds adds these files to the fuzzer's corpus, each cut to max bytes
// (no cut when max is 0) so that mutation stays quick.
func AddSeeds(f *testing.F, max int, paths ...string) {
	f.Helper()
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			continue // testdata/fuzz, the corpus Go keeps itself
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if max > 0 {
			b = b[:min(len(b), max)]
		}
		f.Add(b)
	}
}
