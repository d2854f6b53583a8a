package jmeter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// jtl writes a JTL with a header and one row per start, each taking 20 ms.
func jtl(starts ...time.Time) string {
	var b strings.Builder
	b.WriteString("timeStamp,elapsed,label,responseCode,threadName,success\n")
	for i, s := range starts {
		fmt.Fprintf(&b, "%d,20,GET /,200,Thread Group 1-%d,true\n", s.UnixMilli(), i%3+1)
	}
	return b.String()
}

// paced is n starts from `from`, every `every`.
func paced(from time.Time, n int, every time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = from.Add(time.Duration(i) * every)
	}
	return out
}

func TestCSVAppendedRunsAreSplitAtThePause(t *testing.T) {
	t.Parallel()
	first := paced(t0, 50, 100*time.Millisecond)
	second := paced(t0.Add(5*time.Minute), 30, 100*time.Millisecond)
	runs, err := CSVFormat{}.ImportAll("appended.jtl", strings.NewReader(jtl(append(first, second...)...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Requests.Total != 50 || runs[1].Requests.Total != 30 {
		t.Fatalf("got %d runs (%v), want 50 then 30 requests", len(runs), totals(runs))
	}
	if w := runs[0].Window; w > 5.1 {
		t.Errorf("first run's window %v s, want its own 5 s, not the pause", w)
	}
	if !runs[1].Started.Equal(t0.Add(5 * time.Minute)) {
		t.Errorf("second run starts %v", runs[1].Started)
	}
	if !importertest.HasNote(runs[1], "run 2 of 2 appended in this file: starts at line 52") {
		t.Errorf("notes = %q", runs[1].Notes)
	}
	_, err = CSVFormat{}.Import("appended.jtl", strings.NewReader(jtl(append(first, second...)...)))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "2 JMeter reports") {
		t.Errorf("Import of two runs: %v, want a refusal naming the 2 runs", err)
	}
}

func TestCSVRunsAppendedOutOfOrderAreSplit(t *testing.T) {
	t.Parallel()
	later := paced(t0.Add(time.Hour), 20, 50*time.Millisecond)
	earlier := paced(t0, 20, 50*time.Millisecond)
	runs, err := CSVFormat{}.ImportAll("backwards.jtl", strings.NewReader(jtl(append(later, earlier...)...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || !runs[1].Started.Equal(t0) {
		t.Fatalf("got %d runs %v, want 2, the second starting %v", len(runs), totals(runs), t0)
	}
}

func TestCSVSlowPlanStaysOneRun(t *testing.T) {
	t.Parallel()
	// One thread, a 40 s think time: pauses far above minRunGap, but in
	// step with the run's own pacing.
	runs, err := CSVFormat{}.ImportAll("slow.jtl", strings.NewReader(jtl(paced(t0, 30, 40*time.Second)...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Requests.Total != 30 {
		t.Fatalf("got %v, want one run of 30", totals(runs))
	}
}

func TestCSVUnsortedRowsStayOneRun(t *testing.T) {
	t.Parallel()
	// Rows written as requests end, several seconds out of start order.
	starts := paced(t0, 40, 200*time.Millisecond)
	starts[1], starts[20] = starts[20], starts[1]
	starts[30] = t0.Add(-3 * time.Second)
	runs, err := CSVFormat{}.ImportAll("unsorted.jtl", strings.NewReader(jtl(starts...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("got %v, want one run", totals(runs))
	}
}

func TestCSVTooManyAppendedRunsAreRefused(t *testing.T) {
	t.Parallel()
	var starts []time.Time
	for i := range maxRuns + 1 {
		starts = append(starts, paced(t0.Add(time.Duration(i)*time.Hour), minRunSamples, time.Second)...)
	}
	_, err := CSVFormat{}.ImportAll("many.jtl", strings.NewReader(jtl(starts...)))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "its own results file") {
		t.Fatalf("err = %v, want a refusal with advice", err)
	}
}

func totals(runs []*result.Run) []int64 {
	out := make([]int64, len(runs))
	for i, r := range runs {
		out[i] = r.Requests.Total
	}
	return out
}

// Appended runs share one run's budget of step histograms: a file of many
// runs, each naming many labels, costs no more memory than one run.
func TestCSVAppendedRunsShareTheHistogramBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("timeStamp,elapsed,label,success\n")
	const runs, labels = 5, 150
	for r := range runs {
		for i := range labels {
			fmt.Fprintf(&b, "%d,10,GET /%d,true\n", t0.Add(time.Duration(r)*time.Hour+time.Duration(i)*time.Millisecond).UnixMilli(), i)
		}
	}
	got, err := CSVFormat{}.ImportAll("many-labels.jtl", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != runs {
		t.Fatalf("%d runs, want %d", len(got), runs)
	}
	histograms := 0
	for _, run := range got {
		for _, st := range run.Steps {
			if st.Latency != nil {
				histograms++
			}
		}
		if run.Latency == nil || run.Latency.Count() != labels {
			t.Errorf("a run without its own latency histogram of %d requests", labels)
		}
	}
	if histograms != fileHistograms {
		t.Errorf("%d step histograms in the file, want the budget's %d", histograms, fileHistograms)
	}
	if !importertest.HasNote(got[runs-1], "per-step latency kept for the first 0 only") {
		t.Errorf("last run's notes %q", got[runs-1].Notes)
	}
}
