package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// runWithRequests is a run whose latency histogram holds n requests.
func runWithRequests(n int) result.Run {
	h := hist.New()
	for i := range n {
		h.Record(time.Duration(1+i%7) * time.Millisecond)
	}
	return result.Run{Latency: h, Metrics: map[string]float64{result.LatencyP99: 7}}
}

func TestFewSamplesAreWarned(t *testing.T) {
	t.Parallel()
	cases := []struct {
		runs []int
		want string // "" for no warning
	}{
		{[]int{500, 60}, "latency p99 rests on as few as 60 requests in a run (fewer than 100)"},
		{[]int{12}, "latency p95 and p99 rest on as few as 12 requests in a run"},
		{[]int{100, 4000}, ""},
	}
	for _, tc := range cases {
		var runs []result.Run
		for _, n := range tc.runs {
			runs = append(runs, runWithRequests(n))
		}
		in := Input{Name: "x", Mode: "check", Verdict: gate.Verdict{Outcome: gate.Pass}, Head: runs}
		var text, js bytes.Buffer
		if err := WriteText(&text, in); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, in); err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string]string{"text": text.String(), "markdown": Markdown(in), "json": js.String()} {
			if tc.want == "" && strings.Contains(got, "rest") && strings.Contains(got, "requests in a run") {
				t.Errorf("%v requests, %s: a warning with enough samples:\n%s", tc.runs, name, got)
			}
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("%v requests, %s lacks %q:\n%s", tc.runs, name, tc.want, got)
			}
		}
	}
}
