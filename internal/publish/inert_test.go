package publish

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// hostileInput is a regression whose name, step, error sample, baseline
// source, warning and note carry s.
func hostileInput(s string) report.Input {
	in := judged(true)
	in.Name, in.BaselineSource, in.Notes = s, s, []string{s}
	in.Verdict.Warnings = append(in.Verdict.Warnings, stats.Warning{Message: s})
	in.Head[0].Steps = []result.Step{{Name: s, Requests: 10, Failed: 1}}
	in.Head[0].Errors = []result.ErrorClass{{Class: result.ErrStatus, Step: s, Count: 1, Sample: s}}
	return in
}

// TestHostileTextThroughTheJobSummaryAndTheComment publishes the corpus the
// way the Action does — the job summary through the runtime's file
// command, the sticky comment through the GitHub API (the fake) — and
// parses what each wrote as GitHub would.
func TestHostileTextThroughTheJobSummaryAndTheComment(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	for _, h := range inerttest.Corpus(t) {
		s := h.Value
		in := hostileInput(s)
		step := newStep(t, true)
		if err := (JobSummary{Runtime: step.rt}).Publish(t.Context(), in); err != nil {
			t.Fatal(err)
		}
		c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR, Warn: step.rt}
		if err := c.Publish(t.Context(), in); err != nil {
			t.Fatal(err)
		}
		var body string
		for _, b := range f.ours() {
			if strings.HasPrefix(b, report.Marker(in.Name)) {
				body = b
			}
		}
		for what, md := range map[string]string{"job summary": read(t, step.summary), "comment": body} {
			if md == "" {
				t.Errorf("%q: no %s written", clip(s), what)
			}
			for _, p := range inerttest.MarkdownProblems(md) {
				t.Errorf("%q: %s: %s", clip(s), what, p)
			}
		}
	}
}

func TestHTMLWritesTheHTMLReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := (HTML{Path: path}).Publish(t.Context(), hostileInput("<img src=x onerror=alert(1)> @team")); err != nil {
		t.Fatal(err)
	}
	page := read(t, path)
	rep := inerttest.HTMLProblems(page)
	for _, p := range rep.Problems {
		t.Error(p)
	}
	if rep.SVGs != 1 || !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt; @team") {
		t.Errorf("the page has %d figures (want the gated metric's) or lost the escaped name", rep.SVGs)
	}
	if err := (HTML{}).Publish(t.Context(), judged(true)); err != nil {
		t.Errorf("no path: %v", err)
	}
	blocked := filepath.Join(dir, "file")
	os.WriteFile(blocked, nil, 0o644)
	if err := (HTML{Path: filepath.Join(blocked, "r.html")}).Publish(t.Context(), judged(true)); err == nil {
		t.Error("a report that cannot be written is not an error")
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
