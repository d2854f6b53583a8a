package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// fakeTags lists fixed tags, newest first.
type fakeTags []baseline.Tag

func (f fakeTags) Tags(context.Context, string) ([]baseline.Tag, error) { return f, nil }

var _ baseline.TagLister = fakeTags{}

// creepSetup records ten jobs of main that each got 1.5 % slower than the
// one before (every one within the 6.7 % floor of the window it was judged
// against), the first at commit c00 tagged v1.4, into a baseline window of
// 30 samples and the history beside it; head is one more such step.
func creepSetup(t *testing.T) (CheckOptions, *result.File) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.json")
	cfg := benchmark(t, "http://127.0.0.1:1", "gate: {floors: {iterations_per_s: 6.7}}\n")
	var env testEnv
	level := 1.0
	for j := range 10 {
		res := synthetic(5, level)
		res.Created = res.Created.Add(time.Duration(j) * time.Hour)
		prov := baseline.Provenance{Commit: fmt.Sprintf("c%02d", j), Job: fmt.Sprint(j)}
		if _, err := Record(context.Background(), env.env(), RecordOptions{Config: cfg, Head: res, Path: path, Provenance: prov}); err != nil {
			t.Fatal(err)
		}
		level /= 1.015
	}
	o := CheckOptions{Config: cfg, Head: synthetic(5, level), Baseline: baseline.FileSource{Path: path},
		Tags: fakeTags{{Name: "v1.5", Commit: "not-recorded"}, {Name: "v1.4", Commit: "c00"}}}
	return o, o.Head
}

func creepWarnings(v gate.Verdict) []string {
	var out []string
	for _, w := range v.Warnings {
		if w.Code == gate.WarnCreep {
			out = append(out, w.Message)
		}
	}
	return out
}

func TestCheckCreepAgainstTheLastTag(t *testing.T) {
	t.Parallel()
	o, _ := creepSetup(t)
	var env testEnv
	j, err := Check(context.Background(), env.env(), o)
	if err != nil {
		t.Fatal(err)
	}
	if j.Verdict.Outcome != gate.Pass {
		t.Fatalf("outcome %s: the head is one more small step and passes against the window", j.Verdict.Outcome)
	}
	// The window holds c04…c09: its oldest job is six steps back, v1.4 ten.
	got := creepWarnings(j.Verdict)
	if len(got) != 2 || !strings.Contains(got[0], "iterations/s is 8.5 % worse than at the window's oldest job (c04) (5 runs)") ||
		!strings.Contains(got[1], "iterations/s is 13.8 % worse than at v1.4 (c00) (5 runs): 102/s → 87.89/s") {
		t.Errorf("creep warnings %q, want −8.5 %% against c04 and −13.8 %% against v1.4", got)
	}
	if !strings.Contains(strings.Join(j.Notes, "\n"), "Against v1.4 (c00) (5 runs): iterations/s -13.8 %.") {
		t.Errorf("notes %q lack the figures against v1.4", j.Notes)
	}
}

// A head 3 % better is −5.8 % against the window's oldest job, within the
// floor; with tags turned off nothing is said.
func TestCheckCreepWindowStartWithinFloor(t *testing.T) {
	t.Parallel()
	o, head := creepSetup(t)
	o.Tags = nil
	o.Head = synthetic(5, head.Runs[0].Metrics[result.IterationsPerSec]/100*1.03)
	var env testEnv
	j, err := Check(context.Background(), env.env(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := creepWarnings(j.Verdict); len(got) != 0 {
		t.Errorf("creep warnings %q within the floor", got)
	}
	if len(j.Notes) != 0 {
		t.Errorf("notes %q without a tag", j.Notes)
	}
}

// A head far below the window's start is a creep warning against it too,
// and still only a warning of creep: the verdict is the window's.
func TestCheckCreepWindowStart(t *testing.T) {
	t.Parallel()
	o, _ := creepSetup(t)
	o.Tags = nil
	o.Config.Gate.Creep.Against = []string{"window_start"}
	o.Head = synthetic(5, 0.80)
	var env testEnv
	j, err := Check(context.Background(), env.env(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := creepWarnings(j.Verdict)
	if len(got) != 1 || !strings.Contains(got[0], "is 15.1 % worse than at the window's oldest job (c04)") {
		t.Errorf("creep warnings %q, want one against the window's oldest job c04", got)
	}
}

// A tag that measured another benchmark definition is not compared; an
// empty against list turns creep off.
func TestCheckCreepOtherDefinitionAndOff(t *testing.T) {
	t.Parallel()
	o, head := creepSetup(t)
	head.DefinitionHash = "sha256:other"
	var env testEnv
	j, err := Check(context.Background(), env.env(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(creepWarnings(j.Verdict)) != 0 || !strings.Contains(strings.Join(j.Notes, "\n"), "v1.4 (c00): not compared") {
		t.Errorf("another definition: warnings %q, notes %q", creepWarnings(j.Verdict), j.Notes)
	}
	o, _ = creepSetup(t)
	o.Config.Gate.Creep.Against = nil
	j, _ = Check(context.Background(), env.env(), o)
	if len(creepWarnings(j.Verdict)) != 0 || len(j.Notes) != 0 {
		t.Errorf("creep off: warnings %q, notes %q", creepWarnings(j.Verdict), j.Notes)
	}
}
