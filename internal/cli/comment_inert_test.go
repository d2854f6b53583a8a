package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// TestCommentOfAHostileArtifactIsInert runs the real `tailgate comment`
// (the privileged workflow_run publisher) on report.json artifacts that
// carry the hostile corpus in every free-text field and name, against the
// GitHub fake, and parses each posted comment as GitHub does: no link but
// the run's provenance link, no image, no raw HTML but the report's own, no
// mention, reference or bare URL. An artifact the command refuses must be
// refused as bad input, before any API call. A string only a name may not
// hold (a line break, an invisible character: printable) is posted again
// in the free text alone, under a plain name, and must be rendered inert
// there.
func TestCommentOfAHostileArtifactIsInert(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	corpus := inerttest.Corpus(t)
	bin, dir := buildTailgate(t), t.TempDir()
	fake := newE2EGitHub(t)
	env := commentEnv(t, fake, writeEvent(t, "workflow_run.json", nil))
	const runLink = "https://github.com/tailgate-ci/e2e-shop/actions/runs/4242"
	posted := 0
	// post comments on the report with name in the names and text in the
	// free text; false when it was refused.
	post := func(h inerttest.Hostile, name, text string) bool {
		path := filepath.Join(dir, h.Name+".json")
		writeHostileReport(t, path, name, text)
		before := fake.Count("POST") + fake.Count("PATCH")
		res := runTailgate(t, bin, dir, env, "comment", "--report", path, "--pr", "7")
		if res.code == ExitUsage {
			if !strings.Contains(res.stderr, "invalid report") || fake.Count("POST")+fake.Count("PATCH") != before {
				t.Errorf("%s: refused without saying why, or after calling the API: %s", h.Name, res.stderr)
			}
			return false
		}
		if res.code != ExitPass {
			t.Fatalf("%s: exit %d\n%s", h.Name, res.code, res.stderr)
		}
		posted++
		body := bodyWithMarker(fake, report.Marker(name))
		for _, p := range inerttest.MarkdownProblems(body, runLink) {
			t.Errorf("%s: %s", h.Name, p)
		}
		if !strings.Contains(body, "[workflow run 4242]("+runLink+")") {
			t.Errorf("%s: the comment lacks its provenance link", h.Name)
		}
		return true
	}
	for _, h := range corpus {
		if !post(h, h.Value, h.Value) {
			if _, _, bad := printable.Bad(h.Value); bad {
				post(h, "hostile-"+h.Name, h.Value)
			}
		}
	}
	if posted < 20 {
		t.Errorf("only %d hostile artifacts of %d strings were posted: the test does not exercise the renderer", posted, len(corpus))
	}
}

// writeHostileReport writes a regression's report.json with name as the
// benchmark name, labels, step names and error steps, text as the
// baseline source, notes, warnings and error samples, and per-run figures
// for the chart.
func writeHostileReport(t *testing.T, path, name, text string) {
	t.Helper()
	runs := func(n int, scale float64) []result.Run {
		out := make([]result.Run, n)
		for i := range out {
			out[i] = result.Run{Metrics: map[string]float64{result.IterationsPerSec: scale * (100 + float64(i%4))}}
		}
		return out
	}
	base, head := runs(12, 1), runs(5, 0.7)
	head[0].Steps = []result.Step{{Name: name, Requests: 10, Failed: 1}}
	head[0].Errors = []result.ErrorClass{{Class: result.ErrStatus, Step: name, Count: 1, Sample: text}}
	v := gate.Judge(base, head, gate.Policy{Metrics: []string{result.IterationsPerSec}})
	for i := range v.Findings {
		v.Findings[i].Label, v.Findings[i].Note = name, text
	}
	for i := range v.Detect {
		v.Detect[i].Label = name
	}
	v.Warnings = append(v.Warnings, stats.Warning{Message: text})
	in := report.Input{Name: name, Mode: "check", BaselineSource: text, Verdict: v, Head: head, Base: base, Notes: []string{text}}
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
func bodyWithMarker(f *ghtest.Server, marker string) string {
	for _, c := range f.Comments(e2ePR) {
		if strings.HasPrefix(c.Body, marker) {
			return c.Body
		}
	}
	return ""
}
