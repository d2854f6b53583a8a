package rawrun

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestBuilderCountsStepsAndErrorClassesInOrderSeen(t *testing.T) {
	t.Parallel()
	b := New(Options{What: "labels"})
	for i, name := range []string{"GET /b", "GET /a", "GET /b", "GET /b"} {
		st := b.Request(name, time.Duration(10*(i+1))*time.Millisecond)
		if i >= 2 {
			b.Fail(st, result.ErrStatus, "503", fmt.Sprintf("sample %d", i))
		}
	}
	a := b.Request("GET /a", 50*time.Millisecond)
	b.Fail(a, result.ErrStatus, "500", "a 500")
	b.Fail(b.Request("GET /a", time.Millisecond), result.ErrStatus, "500", "second 500")

	if b.Requests() != (result.Requests{Total: 6, Failed: 4, Counted: result.CountRequests}) {
		t.Fatalf("requests = %+v", b.Requests())
	}
	r := b.Run("first note")
	if r.Requests != b.Requests() || r.Latency.Count() != 6 || r.Metrics == nil || len(r.Metrics) != 0 {
		t.Errorf("run: requests %+v, histogram %d, metrics %v", r.Requests, r.Latency.Count(), r.Metrics)
	}
	if len(r.Steps) != 2 || r.Steps[0].Name != "GET /b" || r.Steps[0].Requests != 3 || r.Steps[0].Failed != 2 ||
		r.Steps[1].Name != "GET /a" || r.Steps[1].Requests != 3 || r.Steps[1].Failed != 2 {
		t.Fatalf("steps = %+v", r.Steps)
	}
	if got := r.Steps[0].Latency.Max(); got < 39*time.Millisecond || got > 41*time.Millisecond {
		t.Errorf("GET /b max latency = %v, want 40ms", got)
	}
	want := []result.ErrorClass{
		{Class: result.ErrStatus, Step: "GET /b", Count: 2, Sample: "sample 2"},
		{Class: result.ErrStatus, Step: "GET /a", Count: 2, Sample: "a 500"},
	}
	if len(r.Errors) != len(want) || r.Errors[0] != want[0] || r.Errors[1] != want[1] {
		t.Errorf("errors = %+v, want %+v", r.Errors, want)
	}
	if len(r.Notes) != 1 || r.Notes[0] != "first note" {
		t.Errorf("notes = %q", r.Notes)
	}
}

func TestBuilderSplitsErrorClassesByDetail(t *testing.T) {
	t.Parallel()
	b := New(Options{What: "targets"})
	st := b.Request("GET /", time.Millisecond)
	b.Fail(st, result.ErrStatus, "500", "status 500")
	st = b.Request("GET /", time.Millisecond)
	b.Fail(st, result.ErrStatus, "503", "status 503")
	if r := b.Run(); len(r.Errors) != 2 || r.Errors[0].Sample != "status 500" || r.Errors[1].Sample != "status 503" {
		t.Errorf("errors = %+v, want one class per status", r.Errors)
	}
}

func TestBuilderWithoutPoolKeepsStepsButBoundsHistograms(t *testing.T) {
	t.Parallel()
	b := New(Options{What: "labels"})
	for i := range MaxSteps + 3 {
		b.Request(fmt.Sprintf("GET /%d", i), time.Millisecond)
	}
	r := b.Run()
	if len(r.Steps) != MaxSteps+3 || r.Steps[MaxSteps-1].Latency == nil || r.Steps[MaxSteps].Latency != nil {
		t.Fatalf("%d steps; histogram at %d: %v, at %d: %v", len(r.Steps),
			MaxSteps-1, r.Steps[MaxSteps-1].Latency != nil, MaxSteps, r.Steps[MaxSteps].Latency != nil)
	}
	if r.Steps[MaxSteps].Requests != 1 || r.Latency.Count() != MaxSteps+3 {
		t.Errorf("unbounded step counts %d, run histogram %d", r.Steps[MaxSteps].Requests, r.Latency.Count())
	}
	want := fmt.Sprintf("%d distinct labels: per-step latency kept for the first %d only", MaxSteps+3, MaxSteps)
	if len(r.Notes) != 1 || r.Notes[0] != want {
		t.Errorf("notes = %q, want %q", r.Notes, want)
	}
}

func TestBuilderWithPoolPoolsNamesPastTheBound(t *testing.T) {
	t.Parallel()
	b := New(Options{What: "targets", Pool: "(other targets)"})
	for i := range MaxSteps + 3 {
		st := b.Request(fmt.Sprintf("GET /%d", i), time.Millisecond)
		if i >= MaxSteps {
			b.Fail(st, result.ErrConnection, "", "refused")
		}
	}
	b.Request("GET /0", time.Millisecond) // a name seen before the bound keeps its step
	r := b.Run("cut")
	if len(r.Steps) != MaxSteps+1 {
		t.Fatalf("%d steps, want %d and the pool", len(r.Steps), MaxSteps)
	}
	pool := r.Steps[MaxSteps]
	if pool.Name != "(other targets)" || pool.Requests != 3 || pool.Failed != 3 || pool.Latency.Count() != 3 {
		t.Errorf("pool = %+v", pool)
	}
	if r.Steps[0].Requests != 2 {
		t.Errorf("GET /0 = %d requests, want 2", r.Steps[0].Requests)
	}
	if len(r.Errors) != 1 || r.Errors[0].Step != pool.Name || r.Errors[0].Count != 3 {
		t.Errorf("errors = %+v, want one class in the pool", r.Errors)
	}
	if len(r.Notes) != 2 || r.Notes[0] != "cut" || !strings.HasPrefix(r.Notes[1], fmt.Sprintf("more than %d distinct targets: ", MaxSteps)) {
		t.Errorf("notes = %q", r.Notes)
	}
}

func TestBuilderWithoutOverflowHasNoNote(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{What: "labels"}, {What: "targets", Pool: "(other)"}} {
		b := New(opts)
		for i := range MaxSteps {
			b.Request(fmt.Sprint(i), time.Millisecond)
		}
		if r := b.Run(); len(r.Notes) != 0 || len(r.Steps) != MaxSteps {
			t.Errorf("%+v: %d steps, notes %q", opts, len(r.Steps), r.Notes)
		}
	}
}

func TestSpanCoversEarliestStartToLatestEnd(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Span
	if s.Seconds() != 0 {
		t.Errorf("empty span = %v s", s.Seconds())
	}
	s.Add(t0.Add(2*time.Second), t0.Add(3*time.Second))
	s.Add(t0, t0.Add(time.Second))
	s.Add(t0.Add(time.Second), t0.Add(2500*time.Millisecond))
	if !s.First.Equal(t0) || !s.Last.Equal(t0.Add(3*time.Second)) || s.Seconds() != 3 {
		t.Errorf("span = %v to %v (%v s), want 3 s from t0", s.First, s.Last, s.Seconds())
	}
}
