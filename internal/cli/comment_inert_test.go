package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// TestCommentOfAHostileArtifactIsInert runs the real `tailgate comment`
// (the privileged workflow_run publisher) on report.json artifacts that
// carry the hostile corpus in every free-text field, against the GitHub
// fake, and parses each posted comment as GitHub does: no link but the
// run's provenance link, no image, no raw HTML but the report's own, no
// mention, reference or bare URL. An artifact the command refuses must be
// refused as bad input, and only for characters or lengths the report
// format forbids.
func TestCommentOfAHostileArtifactIsInert(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	corpus := inerttest.Corpus(t)
	bin, dir := buildTailgate(t), t.TempDir()
	fake := newE2EGitHub(t)
	env := commentEnv(t, fake, writeEvent(t, "workflow_run.json", nil))
	const runLink = "https://github.com/tailgate-ci/e2e-shop/actions/runs/4242"
	posted := 0
	for _, h := range corpus {
		path := filepath.Join(dir, h.Name+".json")
		writeHostileReport(t, path, h.Value)
		before := fake.count("POST") + fake.count("PATCH")
		res := runTailgate(t, bin, dir, env, "comment", "--report", path, "--pr", "7")
		if res.code == ExitUsage {
			if !strings.Contains(res.stderr, "invalid report") || fake.count("POST")+fake.count("PATCH") != before {
				t.Errorf("%s: refused without saying why, or after calling the API: %s", h.Name, res.stderr)
			}
			continue
		}
		if res.code != ExitPass {
			t.Fatalf("%s: exit %d\n%s", h.Name, res.code, res.stderr)
		}
		posted++
		body := bodyWithMarker(fake, report.Marker(h.Value))
		for _, p := range inerttest.MarkdownProblems(body, runLink) {
			t.Errorf("%s: %s", h.Name, p)
		}
		if !strings.Contains(body, "[workflow run 4242]("+runLink+")") {
			t.Errorf("%s: the comment lacks its provenance link", h.Name)
		}
	}
	if posted < 20 {
		t.Errorf("only %d of %d hostile artifacts were posted: the test does not exercise the renderer", posted, len(corpus))
	}
}

// writeHostileReport writes a regression's report.json with s as the
// benchmark name, baseline source, labels, notes, warnings, step names
// and error steps and samples, and per-run figures for the chart.
func writeHostileReport(t *testing.T, path, s string) {
	t.Helper()
	runs := func(n int, scale float64) []result.Run {
		out := make([]result.Run, n)
		for i := range out {
			out[i] = result.Run{Metrics: map[string]float64{result.IterationsPerSec: scale * (100 + float64(i%4))}}
		}
		return out
	}
	base, head := runs(12, 1), runs(5, 0.7)
	head[0].Steps = []result.Step{{Name: s, Requests: 10, Failed: 1}}
	head[0].Errors = []result.ErrorClass{{Class: result.ErrStatus, Step: s, Count: 1, Sample: s}}
	v := gate.Judge(base, head, gate.Policy{Metrics: []string{result.IterationsPerSec}})
	for i := range v.Findings {
		v.Findings[i].Label, v.Findings[i].Note = s, s
	}
	for i := range v.Detect {
		v.Detect[i].Label = s
	}
	v.Warnings = append(v.Warnings, stats.Warning{Message: s})
	in := report.Input{Name: s, Mode: "check", BaselineSource: s, Verdict: v, Head: head, Base: base, Notes: []string{s}}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := report.WriteJSON(f, in); err != nil {
		t.Fatal(err)
	}
}

// bodyWithMarker is the body of our comment that starts with marker.
func bodyWithMarker(f *e2eGitHub, marker string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.comments[e2ePR] {
		if strings.HasPrefix(c.Body, marker) {
			return c.Body
		}
	}
	return ""
}
