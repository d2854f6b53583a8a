package publish

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// judged is a real verdict of a throughput drop (regression) or of equal
// runs (pass).
func judged(regression bool) report.Input {
	mk := func(scale float64, n int) []result.Run {
		runs := make([]result.Run, n)
		for i := range runs {
			runs[i] = result.Run{Metrics: map[string]float64{result.IterationsPerSec: scale * (100 + float64(i%5))}}
		}
		return runs
	}
	head := mk(1, 5)
	if regression {
		head = mk(0.7, 5)
	}
	base := mk(1, 20)
	v := gate.Judge(base, head, gate.Policy{Metrics: []string{result.IterationsPerSec}, BaselineJobs: 4})
	return report.Input{Name: "shop", Mode: "check", BaselineSource: "baselines/shop.json", Verdict: v, Head: head, Base: base}
}

// step is an Actions step: a runtime writing commands to log, with its
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files.
type step struct {
	rt              *ci.Runtime
	log             bytes.Buffer
	output, summary string
}

func newStep(t *testing.T, inStep bool) *step {
	dir := t.TempDir()
	s := &step{output: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary")}
	env := map[string]string{"GITHUB_OUTPUT": s.output, "GITHUB_STEP_SUMMARY": s.summary}
	if !inStep {
		env = nil
	}
	s.rt = ci.NewRuntime(&s.log, func(k string) string { return env[k] })
	return s
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestTerminalWritesTheTextReport(t *testing.T) {
	t.Parallel()
	in := judged(true)
	var got, want bytes.Buffer
	if err := (Terminal{W: &got}).Publish(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	report.WriteText(&want, in)
	if got.String() != want.String() || !strings.Contains(got.String(), "tailgate: shop: REGRESSION") {
		t.Errorf("terminal report:\n%s", got.String())
	}
}

func TestFilesWriteTheReportsAskedFor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := judged(true)
	js, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
	if err := (Files{JSON: js, Markdown: md}).Publish(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(strings.NewReader(read(t, js)))
	if err != nil || back.Verdict.Outcome != gate.Regression {
		t.Errorf("report.json reads back as %v, %v", back.Verdict.Outcome, err)
	}
	if got := read(t, md); got != report.Markdown(in) {
		t.Errorf("Markdown report differs from report.Markdown:\n%s", got)
	}
	if err := (Files{}).Publish(t.Context(), in); err != nil {
		t.Errorf("no files asked for: %v", err)
	}
	blocked := filepath.Join(dir, "file")
	os.WriteFile(blocked, nil, 0o644)
	if err := (Files{JSON: filepath.Join(blocked, "r.json")}).Publish(t.Context(), in); err == nil {
		t.Error("a report that cannot be written is not an error")
	}
}

func TestJobSummaryAnnotatesAndSummarises(t *testing.T) {
	t.Parallel()
	s := newStep(t, true)
	in := judged(true)
	if err := (JobSummary{Runtime: s.rt}).Publish(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	log := s.log.String()
	if !strings.Contains(log, "::error title=performance regression::shop: iterations/s regressed beyond the noise floor") {
		t.Errorf("no ::error annotation for the regression:\n%s", log)
	}
	if n := strings.Count(log, "::warning title=tailgate::"); n != len(in.Verdict.Warnings) || n == 0 {
		t.Errorf("%d warning annotations for %d verdict warnings:\n%s", n, len(in.Verdict.Warnings), log)
	}
	if got := read(t, s.summary); !strings.Contains(got, report.Markdown(in)) {
		t.Errorf("the job summary lacks the Markdown report:\n%s", got)
	}
}

// Outside a step there is no summary to write: that is not a failure.
func TestJobSummaryOutsideAStepIsQuiet(t *testing.T) {
	t.Parallel()
	s := newStep(t, false)
	if err := (JobSummary{Runtime: s.rt}).Publish(t.Context(), judged(false)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.log.String(), "job summary") {
		t.Errorf("warned about a summary outside a step:\n%s", s.log.String())
	}
}

func TestAnnotationsAreBounded(t *testing.T) {
	t.Parallel()
	s := newStep(t, true)
	in := judged(true)
	for i := range 15 {
		in.Verdict.Regressions = append(in.Verdict.Regressions, "metric_"+string(rune('a'+i)))
	}
	(JobSummary{Runtime: s.rt}).Publish(t.Context(), in)
	if n := strings.Count(s.log.String(), "::error "); n != MaxAnnotations {
		t.Errorf("%d ::error annotations, want at most %d", n, MaxAnnotations)
	}
}

func TestOutputs(t *testing.T) {
	t.Parallel()
	s := newStep(t, true)
	c := &StickyComment{URL: "https://github.com/tailgate-ci/shop/pull/7#issuecomment-1"}
	if err := (Outputs{Runtime: s.rt, ReportPath: "/tmp/r.json", Comment: c}).Publish(t.Context(), judged(true)); err != nil {
		t.Fatal(err)
	}
	got := read(t, s.output)
	for _, want := range []string{"verdict", "regression", "regressions", "/tmp/r.json", c.URL} {
		if !strings.Contains(got, want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, got)
		}
	}
	if err := (Outputs{Runtime: newStep(t, false).rt}).Publish(t.Context(), judged(true)); err != nil {
		t.Errorf("outputs outside a step: %v, want nothing to do", err)
	}
}

// target_log is the target logs, one a line (the form upload-artifact's
// path takes), base first; one file once; empty without a started target.
func TestOutputsNameTheTargetLogs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		logs report.TargetLogs
		want string
	}{
		{report.TargetLogs{Base: "/tmp/tailgate-shop-target-base-1.log", Head: "/tmp/tailgate-shop-target-head-2.log"},
			"/tmp/tailgate-shop-target-base-1.log\n/tmp/tailgate-shop-target-head-2.log"},
		{report.TargetLogs{Base: "/tmp/one.log", Head: "/tmp/one.log"}, "/tmp/one.log"},
		{report.TargetLogs{}, ""},
	} {
		s := newStep(t, true)
		in := judged(false)
		in.TargetLog = tc.logs
		if err := (Outputs{Runtime: s.rt}).Publish(t.Context(), in); err != nil {
			t.Fatal(err)
		}
		if got, ok := heredocValue(read(t, s.output), "target_log"); !ok || got != tc.want {
			t.Errorf("%+v: target_log = %q (written %v), want %q:\n%s", tc.logs, got, ok, tc.want, read(t, s.output))
		}
	}
}

func TestFailureSaysThereIsNoVerdict(t *testing.T) {
	t.Parallel()
	s := newStep(t, true)
	Failure(s.rt, "shop", 3, errors.New("dataset verify: count is 5, want 3"))
	if !strings.Contains(s.log.String(), "::error title=tailgate could not judge::dataset verify") {
		t.Errorf("no error annotation:\n%s", s.log.String())
	}
	if got := read(t, s.summary); !strings.Contains(got, "shop: no verdict") || !strings.Contains(got, "exit code 3") || !strings.HasPrefix(got, report.Marker("shop")) {
		t.Errorf("job summary:\n%s", got)
	}
	if got := read(t, s.output); !strings.Contains(got, "error") {
		t.Errorf("outputs:\n%s", got)
	}
}

func TestStickyCommentCreatesThenEdits(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.seed("mallory", report.Marker("shop")+"\nnot ours: never edited")
	s := newStep(t, true)
	c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR, Warn: s.rt}
	if err := c.Publish(t.Context(), judged(true)); err != nil {
		t.Fatal(err)
	}
	if f.count("POST") != 1 || c.URL == "" {
		t.Fatalf("%d POSTs, URL %q; want the comment created", f.count("POST"), c.URL)
	}
	first := c.URL
	if err := c.Publish(t.Context(), judged(false)); err != nil {
		t.Fatal(err)
	}
	ours := f.ours()
	if f.count("POST") != 1 || f.count("PATCH") != 1 || c.URL != first || len(ours) != 1 {
		t.Fatalf("%d POSTs, %d PATCHes, URL %q; want the same comment edited", f.count("POST"), f.count("PATCH"), c.URL)
	}
	if !strings.Contains(ours[0], "### ✅ tailgate · shop: pass") || !strings.HasPrefix(ours[0], report.Marker("shop")) {
		t.Errorf("the sticky comment is not the pass report:\n%s", ours[0])
	}
	if s.log.Len() != 0 {
		t.Errorf("warnings on success:\n%s", s.log.String())
	}
}

// The target logs are runner-local files: the job summary names them, the
// PR comment does not.
func TestStickyCommentLeavesOutTheRunnersLogPaths(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	s := newStep(t, true)
	in := judged(true)
	in.TargetLog = report.TargetLogs{Base: "/runner/_temp/tailgate-shop-target-base-1.log", Head: "/runner/_temp/tailgate-shop-target-head-2.log"}
	c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR, Warn: s.rt}
	if err := c.Publish(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if err := (JobSummary{Runtime: s.rt}).Publish(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	ours := f.ours()
	if len(ours) != 1 || strings.Contains(ours[0], "/runner/_temp") || !strings.Contains(ours[0], "tailgate · shop") {
		t.Errorf("the comment names a runner path, or is not the report:\n%s", ours)
	}
	if got := read(t, s.summary); !strings.Contains(got, "tailgate-shop-target-head-2.log") {
		t.Errorf("the job summary lacks the target log:\n%s", got)
	}
}

// With OnlyRegressions a pass posts nothing new, and a regression does.
func TestStickyCommentOnlyOnRegression(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR, OnlyRegressions: true, Warn: newStep(t, true).rt}
	if err := c.Publish(t.Context(), judged(false)); err != nil {
		t.Fatal(err)
	}
	if f.count("POST") != 0 || f.count("PATCH") != 0 || c.URL != "" {
		t.Fatalf("a pass without a comment: %d POSTs, %d PATCHes, URL %q; want nothing written", f.count("POST"), f.count("PATCH"), c.URL)
	}
	if err := c.Publish(t.Context(), judged(true)); err != nil || f.count("POST") != 1 {
		t.Fatalf("a regression: %v, %d POSTs; want the comment created", err, f.count("POST"))
	}
}

// A token that may not comment is one warning, and publishing goes on.
func TestStickyCommentPermissionDeniedWarnsOnce(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, ghtest.ReadOnly())
	s := newStep(t, true)
	c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR, Warn: s.rt}
	if err := c.Publish(t.Context(), judged(true)); err != nil {
		t.Fatalf("a refused comment failed the step: %v", err)
	}
	if n := strings.Count(s.log.String(), "::warning title=PR comment skipped::"); n != 1 || c.URL != "" {
		t.Errorf("%d warnings, URL %q; want one warning and no URL:\n%s", n, c.URL, s.log.String())
	}
}

// Where commenting is the job's whole purpose (no Warn), the failure is
// returned for the caller to fail on.
func TestStickyCommentRequiredReturnsTheFailure(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, ghtest.ReadOnly())
	c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR}
	if err := c.Publish(t.Context(), judged(true)); err == nil {
		t.Fatal("a refused required comment is not an error")
	}
}

func TestStickyCommentSkipMakesNoCall(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	s := newStep(t, true)
	c := &StickyComment{Commenter: f.client(), Owner: "tailgate-ci", Repo: "shop", PR: fakePR, Skip: "a fork PR's token cannot comment", Warn: s.rt}
	if err := c.Publish(t.Context(), judged(true)); err != nil {
		t.Fatal(err)
	}
	if f.count("GET")+f.count("POST") != 0 || !strings.Contains(s.log.String(), "::warning title=PR comment skipped::a fork PR") {
		t.Errorf("skip: %d calls; log:\n%s", f.count("GET")+f.count("POST"), s.log.String())
	}
}

// All publishes in order and stops at the first failure.
func TestAllStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	var calls []string
	pub := func(name string, err error) Publisher {
		return publisherFunc(func(context.Context, report.Input) error { calls = append(calls, name); return err })
	}
	boom := errors.New("boom")
	err := All(t.Context(), judged(false), pub("a", nil), pub("b", boom), pub("c", nil))
	if !errors.Is(err, boom) || strings.Join(calls, ",") != "a,b" {
		t.Errorf("All = %v after %v; want boom after a,b", err, calls)
	}
}

type publisherFunc func(context.Context, report.Input) error

func (f publisherFunc) Publish(ctx context.Context, in report.Input) error { return f(ctx, in) }

// heredocValue is the value of output name in a GITHUB_OUTPUT file written
// in the NAME<<DELIMITER form, as the runner reads it.
func heredocValue(file, name string) (string, bool) {
	lines := strings.Split(file, "\n")
	for i, line := range lines {
		delim, ok := strings.CutPrefix(line, name+"<<")
		if !ok {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == delim {
				return strings.Join(lines[i+1:j], "\n"), true
			}
		}
	}
	return "", false
}
