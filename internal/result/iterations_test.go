package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func encodeRun(t *testing.T, r Run) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, &File{Runs: []Run{r}}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// An imported run that knows no start, window or iteration count writes
// none of them; zeros would read as measurements.
func TestUnknownFiguresAreAbsent(t *testing.T) {
	t.Parallel()
	js := encodeRun(t, Run{Requests: Requests{Total: 10}, Metrics: map[string]float64{}})
	for _, key := range []string{`"started"`, `"window_s"`, `"iterations"`} {
		if strings.Contains(js, key) {
			t.Errorf("%s written for an unknown figure:\n%s", key, js)
		}
	}
	js = encodeRun(t, Run{Iterations: Iterations{Completed: 493168, Counted: CountCompleted}})
	if !strings.Contains(js, `"completed": 493168`) || strings.Contains(js, `"started"`) || strings.Contains(js, `"succeeded"`) {
		t.Errorf("only the completed count is known:\n%s", js)
	}
}

// tailgate's own runs write every count, zeros included, and read back the
// same; so do files written before counts could be absent.
func TestIterationsRoundTrip(t *testing.T) {
	t.Parallel()
	own := Run{
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Window: 4, Model: "open",
		Iterations: Iterations{Offered: 10, Started: 8, Completed: 7, Succeeded: 0, Dropped: 2, Counted: CountAll},
	}
	js := encodeRun(t, own)
	if !strings.Contains(js, `"succeeded": 0`) || !strings.Contains(js, `"window_s": 4`) || !strings.Contains(js, `"started": "2026-01-02T03:04:05Z"`) {
		t.Errorf("own run lost a figure:\n%s", js)
	}
	f, err := Decode(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Runs[0]; got.Iterations != own.Iterations || !got.Started.Equal(own.Started) || got.Window != own.Window {
		t.Errorf("decoded %+v, want %+v", got, own)
	}
	var old Iterations
	if err := json.Unmarshal([]byte(`{"started":0,"completed":0,"succeeded":0}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Counted != CountAll {
		t.Errorf("old file's counts: counted %b, want all", old.Counted)
	}
	var none Iterations
	if err := json.Unmarshal([]byte(`{}`), &none); err != nil || !none.IsZero() {
		t.Errorf("empty object: %+v, %v", none, err)
	}
}

// Summarize derives what the counts support and nothing else: no
// iterations/s without a completed count, no lifecycle success outside
// tailgate's own runs.
func TestSummarizeReadsOnlyCountedFigures(t *testing.T) {
	t.Parallel()
	imported := Run{Window: 10, Requests: Requests{Total: 100, Counted: CountRequests}}
	imported.Summarize()
	if _, ok := imported.Metrics[IterationsPerSec]; ok {
		t.Errorf("iterations/s from no iteration count: %v", imported.Metrics)
	}
	k6 := Run{Window: 10, Iterations: Iterations{Completed: 50, Counted: CountCompleted}}
	k6.Summarize()
	if k6.Metrics[IterationsPerSec] != 5 {
		t.Errorf("iterations/s = %v, want 5", k6.Metrics[IterationsPerSec])
	}
	if _, ok := k6.Metrics[LifecycleSuccess]; ok {
		t.Error("lifecycle success of an imported run")
	}
	own := Run{Window: 10, Model: "closed", Iterations: Iterations{Started: 50, Completed: 50, Succeeded: 0, Counted: CountAll}}
	own.Summarize()
	if v, ok := own.Metrics[LifecycleSuccess]; !ok || v != 0 {
		t.Errorf("lifecycle success = %v (%v), want a measured 0", v, ok)
	}
}

// A run that counts no request writes no "requests" object, one that
// counts only its total writes only that, and tailgate's own runs write
// both counts, zeros included, as they always did.
func TestRequestCountsAreAbsentUnlessCounted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		req  Requests
		want string // the "requests" line, or "" for none
	}{
		{Requests{Total: 10}, ""},
		{Requests{Total: 400, Counted: CountTotal}, `"requests": {` + "\n" + `        "total": 400` + "\n      },"},
		{Requests{Failed: 3, Counted: CountFailed}, `"requests": {` + "\n" + `        "failed": 3` + "\n      },"},
		{Requests{Total: 0, Failed: 0, Counted: CountRequests}, `"requests": {` + "\n" + `        "total": 0,` + "\n" + `        "failed": 0` + "\n      },"},
	} {
		js := encodeRun(t, Run{Requests: tc.req, Metrics: map[string]float64{}})
		switch {
		case tc.want == "" && strings.Contains(js, `"requests"`):
			t.Errorf("%+v: requests written for no count:\n%s", tc.req, js)
		case tc.want != "" && !strings.Contains(js, tc.want):
			t.Errorf("%+v: want %s in\n%s", tc.req, tc.want, js)
		}
		f, err := Decode(strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		want := tc.req
		if want.Counted&CountTotal == 0 {
			want.Total = 0 // not written, so not read back
		}
		if got := f.Runs[0].Requests; got != want {
			t.Errorf("read back %+v, want %+v", got, want)
		}
	}
	// Files written before counts could be absent hold both: counted.
	var old Requests
	if err := json.Unmarshal([]byte(`{"total":0,"failed":0}`), &old); err != nil || old.Counted != CountRequests {
		t.Errorf("old file's counts: %+v, %v; want both counted", old, err)
	}
	var none Requests
	if err := json.Unmarshal([]byte(`{}`), &none); err != nil || !none.IsZero() {
		t.Errorf("empty object: %+v, %v", none, err)
	}
}

// Summarize derives requests/s only from a counted total and the error
// rate only from both counts: an uncounted 0 is no measurement.
func TestSummarizeReadsOnlyCountedRequests(t *testing.T) {
	t.Parallel()
	none := Run{Window: 10}
	none.Summarize()
	if _, ok := none.Metrics[RequestsPerSec]; ok {
		t.Errorf("requests/s from no request count: %v", none.Metrics)
	}
	totalOnly := Run{Window: 10, Requests: Requests{Total: 100, Failed: 0, Counted: CountTotal}}
	totalOnly.Summarize()
	if totalOnly.Metrics[RequestsPerSec] != 10 {
		t.Errorf("requests/s = %v, want 10", totalOnly.Metrics[RequestsPerSec])
	}
	if v, ok := totalOnly.Metrics[RequestErrorPct]; ok {
		t.Errorf("error rate %v from an uncounted failed count", v)
	}
	both := Run{Window: 10, Requests: Requests{Total: 100, Failed: 0, Counted: CountRequests}}
	both.Summarize()
	if v, ok := both.Metrics[RequestErrorPct]; !ok || v != 0 {
		t.Errorf("error rate = %v (%v), want a measured 0", v, ok)
	}
}

// Summed runs (shards, phases) count what every part counts.
func TestRequestsPlusCountsWhatBothCount(t *testing.T) {
	t.Parallel()
	sum := Requests{Total: 10, Failed: 1, Counted: CountRequests}.Plus(Requests{Total: 5, Counted: CountTotal})
	if sum != (Requests{Total: 15, Failed: 1, Counted: CountTotal}) {
		t.Errorf("sum = %+v", sum)
	}
}
