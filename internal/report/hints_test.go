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

// phasedRun is one head run of two phases: a closed "capacity" phase whose
// service CPU was cpuClosed seconds of 10, and an open "latency" phase at
// 25/s over 10 s that dropped dropped of its 250 iterations while the CPU
// ran cpuOpen seconds (0: not measured).
func phasedRun(cpuClosed, cpuOpen float64, dropped int64) result.Run {
	res := func(cpu float64) *result.Resources {
		if cpu == 0 {
			return nil
		}
		return &result.Resources{CPUSeconds: cpu}
	}
	return result.Run{Model: result.ModelPhases, Metrics: map[string]float64{}, Phases: []result.Phase{
		{Name: "capacity", Run: result.Run{Model: result.ModelClosed, Window: 10, Resources: res(cpuClosed), Metrics: map[string]float64{},
			Iterations: result.Iterations{Started: 400}}},
		{Name: "latency", Run: result.Run{Model: result.ModelOpen, Window: 10, OfferedRate: 25, Resources: res(cpuOpen), Metrics: map[string]float64{},
			Iterations: result.Iterations{Offered: 250, Dropped: dropped, Started: 250 - dropped}}},
		{Name: "skipped", Skipped: true, Run: result.Run{Model: result.ModelOpen, Iterations: result.Iterations{Offered: 10, Dropped: 10}}},
	}}
}

// withIterationTimes gives the open latency phase of r n iterations that
// each took d.
func withIterationTimes(r result.Run, n int, d time.Duration) result.Run {
	h := hist.New()
	for range n {
		h.Record(d)
	}
	r.Phases[1].Run.IterationLatency = h
	return r
}

func TestHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		runs []result.Run
		want []string // one substring per hint, in order
	}{
		// issue 38's fsync-bound service: 70 % dropped, CPU 9 % busy.
		{"fsync-bound", []result.Run{phasedRun(6, 0.9, 175), phasedRun(6, 0.9, 175)}, []string{
			"In the latency phase, 70 % of the offered iterations were dropped (max_inflight iterations were already running)" +
				": the figures describe an overloaded service, not the rate asked for. tailgate started 7.5 iterations/s of the 25.0/s asked. " +
				"Try a rate near what the service completes; its CPU was busy only 9.0 % of the time (of one core), so it waits on something: " +
				"if on storage (fsync), put its data on a RAM disk (tmpfs) for the benchmark; if it serves requests concurrently, a higher max_inflight."}},
		{"dropped, CPU not measured", []result.Run{phasedRun(0, 0, 200)}, []string{"In the latency phase, 80 % of the offered iterations were dropped", ", or a higher max_inflight if the service can take more at once."}},
		{"idle closed phase", []result.Run{phasedRun(1.5, 5, 0)}, []string{
			"The service's CPU was busy only 15 % of the time iterations were in flight in the capacity phase (of one core): it spends most of each iteration waiting"}},
		{"idle open phase", []result.Run{phasedRun(6, 1, 100)}, []string{"of the time iterations were in flight in the latency phase", "a higher rate gives each window more work to measure."}},
		{"half dropped is not most", []result.Run{phasedRun(6, 5, 125)}, nil},
		{"busy", []result.Run{phasedRun(2.5, 2.5, 0)}, nil},
		// bench/gunicorn's latency phase: 30/s on a CPU-bound service, busy
		// 9 % of the window but 36 % of the time its iterations took.
		{"open phase far below capacity", []result.Run{withIterationTimes(phasedRun(6, 0.9, 0), 250, 10*time.Millisecond)}, nil},
		{"open phase that waits", []result.Run{withIterationTimes(phasedRun(6, 0.9, 0), 250, 30*time.Millisecond)}, []string{"busy only 12 % of the time iterations were in flight in the latency phase"}},
		{"no phases", []result.Run{{Model: result.ModelClosed, Window: 20, Resources: &result.Resources{CPUSeconds: 1}}}, []string{"busy only 5.0 % of the time iterations were in flight in the runs"}},
	} {
		got := strings.Join(hints(Input{Head: tc.runs}), "\n")
		if len(tc.want) == 0 && got != "" {
			t.Errorf("%s: hints %q, want none", tc.name, got)
		}
		at := 0
		for _, w := range tc.want {
			i := strings.Index(got[at:], w)
			if i < 0 {
				t.Errorf("%s: hints %q lack %q (in order)", tc.name, got, w)
				break
			}
			at += i + len(w)
		}
	}
}

// A hint is a note in every report, and report.json carries it so that
// tailgate comment shows it too.
func TestHintsInEveryReport(t *testing.T) {
	t.Parallel()
	runs := []result.Run{phasedRun(6, 0.9, 175), phasedRun(6, 0.9, 175)}
	in := Input{Name: "todos", Mode: "check", Verdict: gate.Judge(nil, runs, gate.Policy{}), Head: runs}
	var txt, page, js bytes.Buffer
	for _, err := range []error{WriteText(&txt, in), WriteHTML(&page, in), WriteJSON(&js, in)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"text": txt.String(), "markdown": Markdown(in), "html": page.String(), "comment": Markdown(back)} {
		if !strings.Contains(s, "70 % of the offered iterations were dropped") {
			t.Errorf("the %s report lacks the dropped hint:\n%s", what, s)
		}
	}
	if Markdown(back) != Markdown(in) {
		t.Error("the comment from report.json differs from the Markdown report")
	}
}

// In an A/B job of blocks, a run without phases is a block: the hint says
// so.
func TestHintsNameBlocks(t *testing.T) {
	t.Parallel()
	in := Input{Head: []result.Run{{Model: result.ModelClosed, Window: 20, Resources: &result.Resources{CPUSeconds: 1}}},
		Verdict: gate.Verdict{Sequential: &gate.Sequential{Unit: "block"}}}
	if got := strings.Join(hints(in), ""); !strings.Contains(got, "busy only 5.0 % of the time iterations were in flight in the blocks") {
		t.Errorf("hint %q", got)
	}
}

// A part that selects processes by command line says what share of its
// server's CPU it saw, per side, when that share is short of the whole
// (issue 36: a pool that reconnects, where most backends end unseen).
func TestPartShareHints(t *testing.T) {
	t.Parallel()
	share := func(v ...float64) []result.Run {
		var runs []result.Run
		for _, x := range v {
			runs = append(runs, result.Run{Model: result.ModelClosed, Metrics: map[string]float64{
				result.PartShareKey("postgres"): x, result.PartCPUKey("postgres"): 1}})
		}
		return runs
	}
	ab := &ABRun{}
	for _, tc := range []struct {
		name       string
		base, head []result.Run
		ab         *ABRun
		want       string // "" for no hint
	}{
		{"reconnecting pool", share(5, 7, 6), share(9, 8, 12), ab, "The processes of part postgres had 6 % of their server's CPU on the base and 9 % on the head"},
		{"one side short", share(95, 97, 99), share(40, 50, 45), ab, "had 97 % of their server's CPU on the base and 45 % on the head"},
		{"whole on both sides", share(95, 97, 100), share(92, 99, 100), ab, ""},
		{"a check's runs", nil, share(30), nil, "had 30 % of their server's CPU (the process tree"},
		{"no part", nil, []result.Run{{Model: result.ModelClosed, Metrics: map[string]float64{result.PartCPUKey("postgres"): 1}}}, nil, ""},
	} {
		got := strings.Join(partShareHints(Input{Base: tc.base, Head: tc.head, AB: tc.ab}), "\n")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: hint %q, want none", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: hint %q lacks %q", tc.name, got, tc.want)
		case tc.want != "" && !strings.Contains(got, "is in no side's path CPU/iteration"):
			t.Errorf("%s: hint %q does not say what the rest is", tc.name, got)
		}
	}
	if p, ok := result.PartOfShareKey(result.PartShareKey("pg")); !ok || p != "pg" {
		t.Errorf("PartOfShareKey(PartShareKey(pg)) = %q, %v", p, ok)
	}
	if _, ok := result.PartOfShareKey(result.PartCPUKey("pg")); ok {
		t.Error("PartOfShareKey took a part's CPU key for a share key")
	}
}
