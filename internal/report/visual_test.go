package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// xychart is a Mermaid xychart as its grammar (xychart.jison) reads it.
type xychart struct {
	title      string
	categories []string
	lo, hi     float64
	series     map[string][][]float64 // "bar" or "line" → each series' values
}

var (
	mmString = `"([^"\n]*)"`
	mmNumber = `[+-]?(?:\d+(?:\.\d+)?|\.\d+)`
	mmTitle  = regexp.MustCompile(`^title ` + mmString + `$`)
	mmXAxis  = regexp.MustCompile(`^x-axis (?:` + mmString + ` )?\[((?:` + mmString + `, )*` + mmString + `)\]$`)
	mmYAxis  = regexp.MustCompile(`^y-axis ` + mmString + ` (` + mmNumber + `) --> (` + mmNumber + `)$`)
	mmSeries = regexp.MustCompile(`^(bar|line) (?:` + mmString + ` )?\[((?:` + mmNumber + `, )*` + mmNumber + `)\]$`)
	mmQuoted = regexp.MustCompile(mmString)
	// Inside a label: nothing Mermaid's preprocessor or renderer reads
	// (directives and comments, entities, Markdown strings, HTML), no
	// statement end.
	mmUnsafe = regexp.MustCompile("%%|[`#;{}<>&\\[\\]]")
)

// parseXYChart parses block as Mermaid's xychart grammar would need it:
// the header, then one statement a line; every label a double-quoted
// string holding nothing Mermaid reads; every value a plain number; every
// series as long as the x axis; every value inside the y axis range.
func parseXYChart(t *testing.T, block string) xychart {
	t.Helper()
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	if lines[0] != chartColors || lines[1] != "xychart-beta" {
		t.Fatalf("chart does not start with its colours and xychart-beta: %q", lines[:2])
	}
	lines = lines[1:]
	c := xychart{series: map[string][][]float64{}}
	labels := func(s string) {
		for _, m := range mmQuoted.FindAllStringSubmatch(s, -1) {
			if mmUnsafe.MatchString(m[1]) {
				t.Errorf("label %q holds a character Mermaid reads", m[1])
			}
		}
	}
	for _, raw := range lines[1:] {
		line := strings.TrimSpace(raw)
		labels(line)
		switch {
		case mmTitle.MatchString(line):
			c.title = mmTitle.FindStringSubmatch(line)[1]
		case mmXAxis.MatchString(line):
			for _, m := range mmQuoted.FindAllStringSubmatch(mmXAxis.FindStringSubmatch(line)[2], -1) {
				c.categories = append(c.categories, m[1])
			}
		case mmYAxis.MatchString(line):
			m := mmYAxis.FindStringSubmatch(line)
			c.lo, c.hi = number(t, m[2]), number(t, m[3])
		case mmSeries.MatchString(line):
			m := mmSeries.FindStringSubmatch(line)
			var vs []float64
			for _, s := range strings.Split(m[3], ", ") {
				vs = append(vs, number(t, s))
			}
			c.series[m[1]] = append(c.series[m[1]], vs)
		default:
			t.Errorf("not a statement of xychart's grammar: %q", line)
		}
	}
	if c.title == "" || len(c.categories) == 0 || !(c.lo < c.hi) {
		t.Errorf("chart lacks a title, categories or a y range: %+v", c)
	}
	for kind, ss := range c.series {
		for _, vs := range ss {
			if len(vs) != len(c.categories) {
				t.Errorf("%s series of %d values on %d categories", kind, len(vs), len(c.categories))
			}
			for _, v := range vs {
				if v < c.lo || v > c.hi {
					t.Errorf("%s value %g outside the y axis %g → %g", kind, v, c.lo, c.hi)
				}
			}
		}
	}
	return c
}

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Errorf("not a number: %q", s)
	}
	return v
}

// charts are the comment's Mermaid blocks, as GitHub's parser finds them.
func charts(t *testing.T, md string) []xychart {
	t.Helper()
	var out []xychart
	for _, block := range inerttest.FencedBlocks(md, "mermaid") {
		out = append(out, parseXYChart(t, block))
	}
	return out
}

// TestCommentLayout renders the comment of a pass, a regression, an A/B
// and an inconclusive verdict: the verdict line first, then the gated
// metrics (and only they) with baseline → head, change, floor and
// verdict; the detectable-effect sentence; the chart of what decided;
// the reported-only metrics collapsed.
func TestCommentLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		verdict string
		charts  []string // the chart titles, in order
		paired  bool
	}{
		// The request error rate is 0 in every run: its chart would be flat.
		{"pass", "### ✅ tailgate · api: pass", []string{"latency p95 of each run: baseline samples b, head runs h"}, false},
		{"regression", "### ❌ tailgate · api: regression in iterations/s", []string{"iterations/s of each run: baseline samples b, head runs h"}, false},
		{"ab", "### ❌ tailgate · api: regression in iterations/s (−11.9 %), latency p95 (+29.8 %)",
			[]string{"iterations/s change of head against base in each block"}, true}, // the furthest beyond its floor of the two
		{"toofew", "### ⚠️ tailgate · api: inconclusive: could not judge", []string{"iterations/s of each run: baseline samples b, head runs h"}, false},
	} {
		in := judgedCases()[tc.name]
		md := Markdown(in)
		lines := strings.Split(md, "\n")
		if lines[0] != Marker("api") || !strings.HasPrefix(lines[1], tc.verdict) {
			t.Errorf("%s: the marker and verdict line come first: %q", tc.name, lines[:2])
		}
		gatedAt := strings.Index(md, "| gated metric | verdict | change | p | floor | baseline → head |")
		if in.Verdict.Sequential != nil { // A/B: min_effect and the bounds, no p-value
			gatedAt = strings.Index(md, "| gated metric | verdict | change | bounds | min_effect | base → head |")
		}
		detailsAt := strings.Index(md, "reported-only metrics (not gated)</summary>")
		_, reported := splitGated(in.Verdict.Findings)
		if detailsAt < 0 && len(reported) == 0 {
			detailsAt = len(md)
		}
		if gatedAt < 0 || detailsAt < gatedAt {
			t.Errorf("%s: the gated metrics must come first and the reported-only ones collapsed after them", tc.name)
		}
		for _, f := range in.Verdict.Findings {
			row := "| **" + f.Label + "** | "
			if f.Gated != (strings.Index(md, row) >= 0 && strings.Index(md, row) < detailsAt) {
				t.Errorf("%s: %s (gated %v) is in the wrong table", tc.name, f.Label, f.Gated)
			}
		}
		detect := "this gate detects"
		if tc.name == "toofew" {
			detect = "cannot reliably detect a regression of"
		}
		if !strings.Contains(md, detect) {
			t.Errorf("%s: no detectable-effect sentence (%q)", tc.name, detect)
		}
		got := charts(t, md)
		if len(got) != len(tc.charts) {
			t.Fatalf("%s: %d charts, want %d", tc.name, len(got), len(tc.charts))
		}
		for i, c := range got {
			if c.title != tc.charts[i] {
				t.Errorf("%s: chart %d is %q, want %q", tc.name, i, c.title, tc.charts[i])
			}
			if tc.paired {
				if len(c.series["line"]) != 3 || len(c.series["bar"]) != 0 || c.categories[0] != "1" {
					t.Errorf("%s: a paired chart is three lines over the pairs: %+v", tc.name, c)
				}
			} else if len(c.series["bar"]) != 1 || len(c.series["line"]) != 2 || len(c.categories) != min(len(in.Base), maxChartRuns)+len(in.Head) {
				t.Errorf("%s: a runs chart is the runs' bars under the median and the floor's limit: %+v", tc.name, c)
			}
		}
		if tc.name == "ab" && !strings.Contains(md, "Sequential A/B: 8 blocks (first look at 6, budget 8): regression after 8 blocks in iterations/s, latency p95.") {
			t.Errorf("ab: the sequential A/B line is missing")
		}
		// A sequential A/B chart's caption gives the estimate the test
		// judged and its bounds, in the chart's signs.
		if tc.name == "ab" && !strings.Contains(md, "The sequential test's estimate of the change is −11.9 %, bounds −13.1 % … −10.2 %: "+
			"a regression when it is beyond half of min_effect and both bounds are below zero.") {
			t.Errorf("ab: the chart's caption lacks the sequential estimate and bounds")
		}
	}
}

// TestChartShowsTheRuns: the bars are the runs' values, baseline first;
// the lines are the baseline median and the floor's limit.
func TestChartShowsTheRuns(t *testing.T) {
	t.Parallel()
	in := judgedCases()["regression"]
	c := charts(t, Markdown(in))[0]
	bars := c.series["bar"][0]
	shown := in.Base[len(in.Base)-maxChartRuns:] // the most recent samples
	if c.categories[0] != fmt.Sprintf("b%d", len(in.Base)-maxChartRuns+1) {
		t.Errorf("the chart starts at %s, want the first of the last %d samples", c.categories[0], maxChartRuns)
	}
	for i, r := range append(append([]result.Run{}, shown...), in.Head...) {
		want, _ := strconv.ParseFloat(mermaidNumber(r.Metrics[result.IterationsPerSec]), 64)
		if bars[i] != want {
			t.Errorf("bar %d (%s) = %g, want the run's %g", i, c.categories[i], bars[i], want)
		}
	}
	f := in.Verdict.Findings[0]
	if median, limit := c.series["line"][0][0], c.series["line"][1][0]; median != 99.8 || limit != 93.11 || f.Floor != 6.7 {
		t.Errorf("lines at %g and %g, want the median 99.8 and 99.8 × (1 − 6.7 %%) = 93.11", median, limit)
	}
}

// TestCommentFitsGitHub: a report of every field at its largest stays
// within MaxMarkdownBytes, keeps its verdict and chart, balances its
// sections and says what it left out.
func TestCommentFitsGitHub(t *testing.T) {
	t.Parallel()
	in := cloneInput(judgedCases()["regression"])
	long := strings.Repeat("&<[@", maxLabelRunes/4)
	for range 100 {
		in.Verdict.Findings = append(in.Verdict.Findings, gate.Finding{Key: "cpu_ms_per_iteration", Label: long, Note: strings.Repeat("& ", 1000),
			BaseMedian: 1, HeadMedian: 1, Outcome: gate.NotGated, Change: 0, P: 0.5, Floor: nan(), Worse: 0})
	}
	for range 100 {
		in.Verdict.Warnings = append(in.Verdict.Warnings, stats.Warning{Message: strings.Repeat("|&", 1000)})
		in.Notes = append(in.Notes, strings.Repeat("<>", 1000))
	}
	run := result.Run{}
	for i := range 1000 {
		run.Steps = append(run.Steps, result.Step{Name: fmt.Sprintf("%s %d", long, i), Requests: 1})
		run.Errors = append(run.Errors, result.ErrorClass{Class: result.ErrStatus, Step: long, Count: 1, Sample: strings.Repeat("`|", 1000) + fmt.Sprint(i)})
	}
	in.Head = append(in.Head, run)
	md := Markdown(in)
	if len(md) > MaxMarkdownBytes {
		t.Fatalf("the comment is %d bytes, more than %d", len(md), MaxMarkdownBytes)
	}
	// With the steps base → head (1002: the head runs have two more):
	// five shown before the chart, the rest
	// collapsed after it, and the comment still fits with its chart.
	both := cloneInput(judgedCases()["regression"])
	both.Head, both.Base = append(both.Head, run), append(both.Base, run)
	if md := Markdown(both); len(md) > MaxMarkdownBytes || len(charts(t, md)) != 1 || !strings.Contains(md, "997 more steps (they moved less)") ||
		strings.Index(md, "```mermaid") > strings.Index(md, "997 more steps") {
		t.Errorf("with 1000 steps on both sides the comment is %d bytes, has %d charts, or does not collapse the steps after the chart", len(md), len(charts(t, md)))
	}
	if !strings.Contains(md, "regression in iterations/s") || len(charts(t, md)) != 1 {
		t.Error("the verdict or the chart did not survive")
	}
	if !strings.Contains(md, "more rows: see report.json or the HTML report") {
		t.Error("the comment does not say that it left rows out")
	}
	if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
		t.Error("a collapsed section is left open")
	}
	for _, p := range inerttest.MarkdownProblems(md) {
		t.Error(p)
	}
	if !strings.HasSuffix(md, "</sub>\n") {
		t.Error("the context line must close the comment")
	}
}

func nan() float64 { v := 0.0; return v / v }

var anyURL = regexp.MustCompile(`(?i)(https?|ftp|file)://[^\s"'<>)]*|//[a-z0-9.-]+\.[a-z]{2,}/`)

// withHistograms gives runs request latency histograms of n requests
// around median ms, slower by scale.
func withHistograms(runs []result.Run, median time.Duration, scale float64) []result.Run {
	out := make([]result.Run, len(runs))
	for i, r := range runs {
		h := hist.New()
		for k := range 2000 {
			// a long tail: most requests near the median, a few far above
			tail := 1 + float64(k%100)/100*float64(k%7) + float64(k%1000)/100
			h.Record(time.Duration(float64(median) * scale * tail))
		}
		r.Latency = h
		out[i] = r
	}
	return out
}

// TestHTMLReportStructure renders the HTML report of a pass, a
// regression, an A/B and an inconclusive verdict: every element and
// attribute its own, nothing fetched, no script, every figure an inline
// <svg> drawn without a fixed size; the sections each mode has.
func TestHTMLReportStructure(t *testing.T) {
	t.Parallel()
	ab := cloneInput(judgedCases()["ab"])
	ab.Base, ab.Head = withHistograms(ab.Base, 5*time.Millisecond, 1), withHistograms(ab.Head, 5*time.Millisecond, 1.1)
	regression := cloneInput(judgedCases()["regression"])
	regression.Head = withHistograms(regression.Head, 10*time.Millisecond, 1)
	for _, tc := range []struct {
		name string
		in   Input
		svgs int
		want []string
	}{
		// 4 gated metrics: their runs; a stored baseline: their trends and
		// the head's distribution.
		{"regression", regression, 4 + 4 + 1, []string{"The baseline window over its commits", "No latency histograms for the baseline side",
			"a stored baseline keeps each sample", "0a1b2c3", "409 &lt;INVALID ACTION&gt;", "p99", `<th class="num">floor</th>`}},
		{"pass", judgedCases()["pass"], 4, []string{"No latency histograms for the baseline and head side"}},
		{"ab", ab, 4 + 1, []string{"each block&#39;s change of iterations/s", "Sequential A/B: 8 blocks (first look at 6, budget 8)", "SD of the blocks&#39; changes",
			"the sequential test&#39;s estimate of the change, −11.9 %; the bar at the right: its bounds, −13.1 % … −10.2 %",
			"shaded: min_effect, 5.0 %; a regression when the estimate is past the red dashed line and the whole bar below zero", ">bounds</text>",
			`<th class="num">min_effect</th>`}},
		{"toofew", judgedCases()["toofew"], 4, []string{"inconclusive", "not reliably"}},
		{"nobaseline", judgedCases()["nobaseline"], 0, []string{"Nothing was compared", "No latency histograms for the head side"}},
	} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, tc.in); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		page := buf.String()
		rep := inerttest.HTMLProblems(page)
		for _, p := range rep.Problems {
			t.Errorf("%s: %s", tc.name, p)
		}
		if rep.SVGs != tc.svgs || strings.Count(page, "</svg>") != tc.svgs {
			t.Errorf("%s: %d <svg> figures, want %d", tc.name, rep.SVGs, tc.svgs)
		}
		if strings.Count(page, "<figure>") != tc.svgs {
			t.Errorf("%s: %d figures for %d plots: every plot is a figure with its caption", tc.name, strings.Count(page, "<figure>"), tc.svgs)
		}
		for _, want := range append(tc.want,
			`<meta http-equiv="Content-Security-Policy" content="default-src 'none'`, "prefers-color-scheme: dark",
			`<meta name="viewport"`) {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %q", tc.name, want)
			}
		}
		// No embedded font (it was 90 % of a 0.6 MB page): the figures name
		// fonts with Liberation Sans's metrics, and the page stays small.
		if strings.Contains(page, "@font-face") || strings.Contains(page, "font-family:Liberation Sans;") ||
			(tc.svgs > 0 && !strings.Contains(page, "font-family:'Liberation Sans', Arial, Helvetica, sans-serif;")) {
			t.Errorf("%s: the page embeds a font or its figures name Liberation Sans alone", tc.name)
		}
		if len(page) > 150_000 {
			t.Errorf("%s: the page is %d bytes, want at most 150 KB", tc.name, len(page))
		}
		// The only addresses are the SVG namespaces, which name, never fetch.
		if urls := anyURL.FindAllString(strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "",
			`xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(page), -1); len(urls) > 0 {
			t.Errorf("%s: the page holds addresses %q", tc.name, urls)
		}
		for _, bad := range []string{"<script", "<svg width", "<?xml"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the page holds %q", tc.name, bad)
			}
		}
	}
}
