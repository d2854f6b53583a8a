package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// hostileHistory is 20 jobs whose commits, refs and runners carry markup,
// a workflow command and a bidirectional override, with one change point.
func hostileHistory(t *testing.T) HistoryInput {
	t.Helper()
	var jobs []gate.HistoryJob
	for j := range 20 {
		level := 2.0
		if j >= 10 {
			level = 2.4
		}
		job := gate.HistoryJob{Commit: "<img src=x onerror=alert(1)>", Ref: "refs/heads/main\n::error::pwned", Job: "j",
			Time: time.Date(2026, 11, 1, j, 0, 0, 0, time.UTC), Machine: "cpu\u202e", Runner: "<b>image</b>", Definition: "d"}
		for r := range 3 {
			job.Runs = append(job.Runs, result.Run{Index: r, Metrics: map[string]float64{result.CPUPerIteration: level * (1 + 0.01*float64(r))}})
		}
		jobs = append(jobs, job)
	}
	jobs[10].Runner = "<script>x</script>"
	v, err := gate.AnalyzeHistory(jobs, gate.HistoryPolicy{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return HistoryInput{Name: "api", Source: "h.jsonl", Jobs: jobs, Verdict: v}
}

func TestHistoryReportsAreInert(t *testing.T) {
	t.Parallel()
	in := hostileHistory(t)
	text, page := renderHistory(t, in)
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a text line starts a workflow command: %q", line)
		}
	}
	if !strings.Contains(text.String(), "worse, with the environment") || !strings.Contains(text.String(), "runner image") {
		t.Errorf("the step that came with a new runner image is not said to be the environment's:\n%s", text.String())
	}
	html := page.String()
	for _, bad := range []string{"<img", "<script", "<b>", "\u202e", "\n::error"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "‹U&#43;202E›", "<svg", "Content-Security-Policy"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The figure's axis shows no commit that is not hex.
	if strings.Contains(html, "onerror") && strings.Contains(html[strings.Index(html, "<svg"):], "onerror") {
		t.Error("a hostile commit reached a figure")
	}
}

func TestHistoryTextNamesTheRange(t *testing.T) {
	t.Parallel()
	in := hostileHistory(t)
	for i := range in.Jobs {
		in.Jobs[i].Commit = strings.Repeat(string("0123456789abcdef"[i%16]), 40)
		in.Jobs[i].Runner = "ubuntu24/1"
	}
	v, err := gate.AnalyzeHistory(in.Jobs, gate.HistoryPolicy{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in.Verdict = v
	var text bytes.Buffer
	if err := WriteHistoryText(&text, in); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CPU/iteration (20 jobs): 1 change point", "regression: +20.0 %", "commits 999999999999..aaaaaaaaaaaa",
		"main is at a regressed level: CPU/iteration +20.0 % since aaaaaaaaaaaa"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if c := in.Verdict.Metrics[0].Changes[0]; math.Abs(c.Change-20) > 0.01 {
		t.Errorf("change %+v", c)
	}
}

func TestTrendNote(t *testing.T) {
	t.Parallel()
	in := Input{Name: "api", TrendURL: "https://acme.github.io/api/trend.html"}
	if md := Markdown(in); !strings.Contains(md, "[Trend of main](https://acme.github.io/api/trend.html)") {
		t.Errorf("no link to the trend page:\n%s", md)
	}
	for _, bad := range []string{"javascript:alert(1)", "https://x.io/a)](https://evil", "http://plain.example/t.html"} {
		in.TrendURL = bad
		md := Markdown(in)
		if strings.Contains(md, "[Trend of main](") || !strings.Contains(md, "Trend of main: ") {
			t.Errorf("%q was linked, or not shown as text:\n%s", bad, md)
		}
	}
}

// shortStepHistory is the history: CPU per iteration 3.57–3.99 ms
// for `before` jobs, then 5.72–6.73 ms (+55 %), 5 runs a job.
func shortStepHistory(t *testing.T, before, after int) HistoryInput {
	t.Helper()
	var jobs []gate.HistoryJob
	rng := rand.New(rand.NewPCG(uint64(before), uint64(after)))
	for j := range before + after {
		level := 3.78
		if j >= before {
			level = 6.2
		}
		level *= 1 + 0.02*rng.NormFloat64()
		job := gate.HistoryJob{Commit: fmt.Sprintf("%02d%038x", j+1, j), Ref: "refs/heads/main", Job: fmt.Sprint(j),
			Time: time.Date(2026, 11, 1, j, 0, 0, 0, time.UTC), Machine: "m", Definition: "d"}
		for r := range 5 {
			job.Runs = append(job.Runs, result.Run{Index: r, Metrics: map[string]float64{
				result.CPUPerIteration:  level * (1 + 0.01*float64(r-2)),
				result.IterationsPerSec: 100 * (1 + 0.03*rng.NormFloat64()),
			}})
		}
		jobs = append(jobs, job)
	}
	v, err := gate.AnalyzeHistory(jobs, gate.HistoryPolicy{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return HistoryInput{Name: "api", Source: "h.jsonl", Jobs: jobs, Verdict: v}
}

// 3 jobs before a +55 % step and 5 after: the search cannot confirm it,
// and the report says the values step at job #4 and that there are too
// few jobs, never that main is at no regressed level; the page's badge is
// not "steady". With 5 + 9 jobs the step is confirmed at job #6.
func TestHistoryShortStepIsNamed(t *testing.T) {
	t.Parallel()
	in := shortStepHistory(t, 3, 5)
	text, page := renderHistory(t, in)
	out := text.String()
	for _, want := range []string{"the values step +", "at job #4 04", "not confirmed: too few jobs (3 before it, 5 from it on",
		"main may be at a regressed level, not yet confirmed: CPU/iteration +", "since 04"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	html := page.String()
	if strings.Contains(out, "main is at no regressed level") || strings.Contains(html, ">steady<") || !strings.Contains(html, ">step not confirmed<") {
		t.Errorf("a visible step is reported as steady:\n%s", out)
	}
	// The metric that moved comes first (the catalogue puts iterations/s
	// before CPU/iteration), and its axis names the step's commit.
	cpu, tput := strings.Index(html, `aria-label="CPU/iteration"`), strings.Index(html, `aria-label="iterations/s"`)
	if cpu < 0 || tput < 0 || cpu > tput || !strings.Contains(html, ">0400000<") {
		t.Errorf("figures: CPU/iteration at %d, iterations/s at %d, want the CPU first and commit 0400000 on its axis", cpu, tput)
	}
	text.Reset()
	if err := WriteHistoryText(text, shortStepHistory(t, 5, 9)); err != nil {
		t.Fatal(err)
	}
	if out := text.String(); !strings.Contains(out, "regression: +") || !strings.Contains(out, "job #6") || !strings.Contains(out, "main is at a regressed level: CPU/iteration") {
		t.Errorf("5 + 9 jobs: the step is not confirmed at job #6:\n%s", out)
	}
}

// chainHistory is 12 commits of main, each with an absolute job and an
// A/B link against its parent: CPU per iteration steps +10 % at commit 7
// (job #7) in both views when codeStep, else only in the absolute jobs
// (a new runner image the A/B, side by side, cannot see).
func chainHistory(t *testing.T, codeStep bool) HistoryInput {
	t.Helper()
	rng := rand.New(rand.NewPCG(12, 7))
	var jobs []gate.HistoryJob
	var links []gate.ChainLink
	for j := range 12 {
		commit, parent := fmt.Sprintf("%02d%038x", j+1, j), fmt.Sprintf("%02d%038x", j, max(j-1, 0))
		level := 2.0
		if j >= 6 {
			level = 2.2
		}
		job := gate.HistoryJob{Commit: commit, Ref: "refs/heads/main", Job: fmt.Sprint(j), Time: time.Date(2026, 11, 1+j, 0, 0, 0, 0, time.UTC), Machine: "m", Definition: "d"}
		for r := range 5 {
			job.Runs = append(job.Runs, result.Run{Index: r, Metrics: map[string]float64{result.CPUPerIteration: level * (1 + 0.01*rng.NormFloat64())}})
		}
		jobs = append(jobs, job)
		c := 0.8 * rng.NormFloat64()
		outcome := gate.MetricPass
		if j == 6 && codeStep {
			c, outcome = 10+c, gate.MetricRegression
		}
		links = append(links, gate.ChainLink{Commit: commit, Parent: parent, Job: "ab" + fmt.Sprint(j), Time: job.Time,
			Metrics: map[string]gate.LinkMetric{result.CPUPerIteration: {Change: c, Lo: c - 1.6, Hi: c + 1.6, Outcome: outcome}}})
	}
	v, err := gate.AnalyzeHistory(jobs, gate.HistoryPolicy{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return HistoryInput{Name: "api", Source: "h.jsonl", Jobs: jobs, Verdict: v, Chain: gate.AnalyzeChainFrom(links, nil, 0, "", "v1", gate.HistoryPolicy{})}
}

// Both views name commit 07 for the step, and the report says which view
// found what; when only the absolute jobs see the step, the change point
// says the chain judged those commits and saw no regression.
func TestHistoryBothViews(t *testing.T) {
	t.Parallel()
	in := chainHistory(t, true)
	text, page := renderHistory(t, in)
	out := text.String()
	for _, want := range []string{
		"regression: +", "commits 060000000000..070000000000 (job #7)", // the absolute view, at the right job
		"the A/B chain names 070000000000 (its own A/B on 2026-11-07: +", // the chain's culprit, seen by its own A/B
		"A/B chain of main: 12 commits", "regressed by 070000000000 on 2026-11-07 (its own A/B: +",
		"main is still at that level", "creep since v1 (12 commits): +",
		"main is at a regressed level: CPU/iteration +", "(a change point of the jobs); CPU/iteration +", "since 070000000000 (its own A/B on 2026-11-07)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	html := page.String()
	for _, want := range []string{">regressed<", "A/B chain: each commit against its parent", `aria-label="CPU/iteration · A/B chain"`, ">0700000<"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	text.Reset()
	if err := WriteHistoryText(text, chainHistory(t, false)); err != nil {
		t.Fatal(err)
	}
	out = text.String()
	if !strings.Contains(out, "the A/B chain judged this commit and saw no regression") || !strings.Contains(out, "no commit's own A/B found it regressed") {
		t.Errorf("a step only the absolute jobs see is not told apart:\n%s", out)
	}
}

// The chain of bench/history/chain.sh on json-server: commit 6's own A/B
// found +10.1 % [+4.4 … +16.1], and the six commits after it, unchanged,
// measured −3.6 … +1.0 % with bounds of about ±6 %. Their noise makes the
// level since commit 6 unconfirmable (+5.1 % [−8.2 … +20.3]), yet nothing
// undid the step: main is at a regressed level, in the headline, the
// chain's lines and the page's badge, and the level is not "no longer".
func TestHistoryChainStepNotUndoneByNoisyCommits(t *testing.T) {
	t.Parallel()
	changes := []float64{0.2, -1.7, -2.1, 0.1, 10.1, -2.5, -0.2, -3.6, 1.0, 0.1, 0.7}
	var links []gate.ChainLink
	for i, c := range changes {
		outcome, lo, hi := gate.MetricPass, c-6, c+6
		if i == 4 {
			outcome, lo, hi = gate.MetricRegression, 4.4, 16.1
		}
		links = append(links, gate.ChainLink{Commit: fmt.Sprintf("%02d%038x", i+2, i), Parent: fmt.Sprintf("%02d%038x", i+1, max(i-1, 0)), Job: fmt.Sprint(i),
			Time: time.Date(2026, 12, 5, 3, i, 0, 0, time.UTC), Metrics: map[string]gate.LinkMetric{result.CPUPerIteration: {Change: c, Lo: lo, Hi: hi, Outcome: outcome}}})
	}
	for i := 1; i < len(links); i++ {
		links[i].Parent = links[i-1].Commit
	}
	in := HistoryInput{Name: "items", Source: "h.jsonl", Chain: gate.AnalyzeChainFrom(links, nil, 0, "", "v0", gate.HistoryPolicy{})}
	text, page := renderHistory(t, in)
	out := text.String()
	for _, want := range []string{"regressed by 06000000000", "no later commit undid it: +",
		"main is at a regressed level: CPU/iteration +10.1 % by 06000000000", "which no later commit undid"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no longer at that level") || strings.Contains(out, "main is at no regressed level") {
		t.Errorf("a step nothing undid is reported as gone:\n%s", out)
	}
	html := page.String()
	if !strings.Contains(html, ">regressed<") || !strings.Contains(html, "no later commit undid it: ") {
		t.Error("the page does not say main is regressed")
	}
	// The chain's only metric here is the one that moved; with one that
	// did not beside it, the one that moved comes first in both.
	links[0].Metrics[result.IterationsPerSec] = gate.LinkMetric{Change: 1, Lo: -3, Hi: 5, Outcome: gate.MetricPass}
	in.Chain = gate.AnalyzeChainFrom(links, nil, 0, "", "v0", gate.HistoryPolicy{})
	text, page = renderHistory(t, in)
	out, html = text.String(), page.String()
	if cpu, tput := strings.Index(out, "  CPU/iteration: regressed"), strings.Index(out, "  iterations/s: no commit"); cpu < 0 || tput < 0 || cpu > tput {
		t.Errorf("the chain lists CPU/iteration at %d, iterations/s at %d: want the metric that moved first:\n%s", cpu, tput, out)
	}
	if cpu, tput := strings.Index(html, `aria-label="CPU/iteration · A/B chain"`), strings.Index(html, `aria-label="iterations/s · A/B chain"`); cpu < 0 || tput < 0 || cpu > tput {
		t.Errorf("the page's chain figures: CPU/iteration at %d, iterations/s at %d, want the metric that moved first", cpu, tput)
	}
}

// A step the better way that no test confirms (CPU per iteration falling
// by 39 % after 5 jobs, 3 after) is not "steady" either: the badge says the
// step is not confirmed and the headline names it, while main is at no
// regressed level.
func TestHistoryUnconfirmedImprovementIsNotSteady(t *testing.T) {
	t.Parallel()
	jobs := slices.Clone(shortStepHistory(t, 3, 5).Jobs)
	slices.Reverse(jobs)
	v, err := gate.AnalyzeHistory(jobs, gate.HistoryPolicy{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in := HistoryInput{Name: "api", Source: "h.jsonl", Jobs: jobs, Verdict: v}
	text, page := renderHistory(t, in)
	if out := text.String(); !strings.Contains(out, "main is at no regressed level of a gated metric; the values show steps the better way that no test confirmed: CPU/iteration −") {
		t.Errorf("the headline does not name the step:\n%s", out)
	}
	if html := page.String(); strings.Contains(html, ">steady<") || !strings.Contains(html, ">step not confirmed<") {
		t.Error("a visible improvement sits under a steady badge")
	}
}

// Jobs whose values spread by a factor of several say they are too noisy,
// rather than naming a smallest visible step of thousands of percent.
func TestHistoryReachOfNoisyJobs(t *testing.T) {
	t.Parallel()
	m := gate.HistoryMetric{Meta: result.Metrics[0], Values: make([]float64, 12), Side: 4, Visible: 10810}
	if m.Meta.Scale == result.Percent {
		t.Skip("the catalogue's first metric is a rate")
	}
	if got := reachText(m); !strings.Contains(got, "too noisy to show a step under 100 %") {
		t.Errorf("reach %q", got)
	}
	m.Visible = 22.3
	if got := reachText(m); !strings.Contains(got, "these 12 jobs show steps of 22.3 % or more with 4 jobs on each side") {
		t.Errorf("reach %q", got)
	}
}

// bench/history/chain.sh's creep chains on json-server: ten commits of
// +1.5 % each, whose links multiplied to +5.7 % (not flagged), while one
// A/B of the last commit against the tag said +12.5 % (+6.4 … +17.9). With
// that A/B in the history (a span) the creep is flagged from it, in the
// headline, the chain's lines and the page, and the links' product is
// said beside it.
func TestHistoryCreepMeasuredBySpan(t *testing.T) {
	t.Parallel()
	var entries []gate.ChainLink
	commit := func(i int) string { return fmt.Sprintf("%02d%038x", i, i) }
	for i := 1; i <= 10; i++ {
		entries = append(entries, gate.ChainLink{Commit: commit(i), Parent: commit(i - 1), Job: fmt.Sprint(i), Time: time.Date(2026, 12, 5, 3, i, 0, 0, time.UTC),
			Metrics: map[string]gate.LinkMetric{result.CPUPerIteration: {Change: 0.55, Lo: -4, Hi: 5.1, Outcome: gate.MetricPass}}})
	}
	entries = append(entries, gate.ChainLink{Commit: commit(10), Parent: commit(0), Job: "creep", Time: time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC),
		Metrics: map[string]gate.LinkMetric{result.CPUPerIteration: {Change: 12.5, Lo: 6.4, Hi: 17.9, Outcome: gate.MetricRegression}}})
	links, spans := gate.SplitChain(entries)
	in := HistoryInput{Name: "items", Source: "h.jsonl", Chain: gate.AnalyzeChainFrom(links, spans, 0, "", "v0", gate.HistoryPolicy{})}
	text, page := renderHistory(t, in)
	out := text.String()
	for _, want := range []string{
		"it crept: creep since v0: CPU/iteration +12.5 % (95 % bounds +6.4 % … +17.9 %) over 10 commits (one A/B against 000000000000)",
		"creep since v0 (10 commits): +12.5 % (95 % bounds +6.4 % … +17.9 %), flagged",
		"; measured by one A/B of 100000000000 against 000000000000 on 2026-12-05; the commits' own A/Bs multiply to +5.6 %",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if html := page.String(); !strings.Contains(html, "measured by one A/B of 100000000000 against 000000000000") ||
		!strings.Contains(html, "the creep one A/B of 100000000000 against 000000000000 measured (bold line from that commit on)") {
		t.Error("the page does not say how the creep was measured, or its figure does not draw it")
	}
}

// renderHistory writes in as the text report and as the page.
func renderHistory(t *testing.T, in HistoryInput) (text, page *bytes.Buffer) {
	t.Helper()
	text, page = new(bytes.Buffer), new(bytes.Buffer)
	if err := WriteHistoryText(text, in); err != nil {
		t.Fatal(err)
	}
	if err := WriteHistoryHTML(page, in); err != nil {
		t.Fatal(err)
	}
	return text, page
}

// linksOnlyHistory is a history of 12 A/B links and no absolute job, as
// the Action's record mode writes it: CPU/iteration stepped +10.1 % at
// the fifth link (its own A/B found it), and the links after it measured
// noise of a few percent; throughput moved by noise alone; the three
// rates (request errors, lifecycle success, dropped) were 0 in every
// block of every link, so each link estimated ±0.00 pp with bounds of 0.
func linksOnlyHistory() HistoryInput {
	cpu := []float64{0.2, -1.7, -2.1, 0.1, 10.1, -2.5, -0.2, -3.6, 1.0, 0.1, 0.7, -0.4}
	var links []gate.ChainLink
	for i, c := range cpu {
		m := map[string]gate.LinkMetric{
			result.CPUPerIteration:  {Change: c, Lo: c - 6, Hi: c + 6, Outcome: gate.MetricPass},
			result.IterationsPerSec: {Change: -c / 3, Lo: -c/3 - 0.04, Hi: -c/3 + 4, Outcome: gate.MetricPass},
			result.RequestErrorPct:  {Outcome: gate.MetricPass}, result.LifecycleSuccess: {Outcome: gate.MetricPass}, result.DroppedPct: {Outcome: gate.MetricPass},
		}
		if i == 4 {
			m[result.CPUPerIteration] = gate.LinkMetric{Change: c, Lo: 0.03, Hi: 16.1, Outcome: gate.MetricRegression} // a lower bound that rounds to 0.0
		}
		links = append(links, gate.ChainLink{Commit: fmt.Sprintf("%02x%038x", i+0xa1, i), Job: fmt.Sprint(100 + i),
			Time: time.Date(2026, 12, 1+i/4, 3, i, 0, 0, time.UTC), Metrics: m})
	}
	links[0].Parent = fmt.Sprintf("%040x", 0)
	for i := 1; i < len(links); i++ {
		links[i].Parent = links[i-1].Commit
	}
	return HistoryInput{Name: "items", Source: "/home/runner/work/_temp/history/main.jsonl", Chain: gate.AnalyzeChainFrom(links, nil, 0, "", "v0.3.0", gate.HistoryPolicy{})}
}

// The trend page of a history of links only (issue 45): one test per
// defect the page had.
func TestTrendOfLinksOnly(t *testing.T) {
	t.Parallel()
	in := linksOnlyHistory()
	text, page := renderHistory(t, in)
	out, html := text.String(), page.String()
	figures := regexp.MustCompile(`aria-label="([^"]*)"`).FindAllStringSubmatch(html, -1)

	t.Run("says what the history holds", func(t *testing.T) {
		want := "12 commits judged by A/B from …/main.jsonl, 2026-12-01 03:00 (a10000000000) … 2026-12-03 03:11 (ac0000000000); no absolute job"
		if strings.Contains(html, "no jobs in") || !strings.Contains(html, want) || strings.Contains(html, "/home/runner") {
			t.Errorf("the page's context is not %q", want)
		}
		if !strings.Contains(out, "12 commits judged by A/B from /home/runner/work/_temp/history/main.jsonl") {
			t.Errorf("the terminal does not say what the history holds:\n%s", out)
		}
		if strings.Contains(html, "Each gated metric over main") || strings.Contains(html, "The absolute jobs below") {
			t.Error("the page has a section, or points to one, of absolute jobs it does not hold")
		}
	})
	t.Run("lists the links", func(t *testing.T) {
		if !strings.Contains(html, "12 commits judged by A/B</summary>") || strings.Count(html, "<tr class=\"regression\"><td class=\"num\" data-label=\"#\">") != 1 ||
			!strings.Contains(html, "<td data-label=\"commit\"><code>a50000000000</code></td><td data-label=\"against\"><code>a40000000000</code></td><td data-label=\"time\">2026-12-02 03:04</td><td class=\"text\" data-label=\"job\">104</td><td class=\"text\" data-label=\"its own A/B\">CPU/iteration &#43;10.1 % (regression); iterations/s −3.4 %</td>") {
			t.Error("the page does not list the links, each with what its own A/B said")
		}
	})
	t.Run("draws no panel flat at 0", func(t *testing.T) {
		if len(figures) != 2 || figures[0][1] != "CPU/iteration · A/B chain" || figures[1][1] != "iterations/s · A/B chain" {
			t.Errorf("the figures are %q, want CPU/iteration's and iterations/s's only", figures)
		}
		if !strings.Contains(html, "<li>request errors, lifecycle success, dropped: every commit&#39;s A/B measured no change, with bounds of 0") {
			t.Error("the page does not say why the rates are not drawn")
		}
	})
	t.Run("badge", func(t *testing.T) {
		if !strings.Contains(html, `<span class="badge regressed">regressed</span>`) {
			t.Error("main at a culprit's level is not regressed")
		}
		quiet := linksOnlyHistory()
		for i := range quiet.Chain.Links {
			lm := quiet.Chain.Links[i].Metrics[result.CPUPerIteration]
			lm.Outcome = gate.MetricPass
			quiet.Chain.Links[i].Metrics[result.CPUPerIteration] = lm
		}
		quiet.Chain = gate.AnalyzeChainFrom(quiet.Chain.Links, nil, 0, "", "v0.3.0", gate.HistoryPolicy{})
		for _, tc := range []struct {
			in   HistoryInput
			want string
		}{{quiet, `<span class="badge steady">no commit regressed</span>`}, {HistoryInput{Name: "items", Source: "h.jsonl"}, `<span class="badge inconclusive">nothing recorded</span>`}} {
			_, p := renderHistory(t, tc.in)
			if !strings.Contains(p.String(), tc.want) {
				t.Errorf("the badge is not %s", tc.want)
			}
		}
	})
	t.Run("labels the culprit", func(t *testing.T) {
		svg := html[strings.Index(html, `aria-label="CPU/iteration · A/B chain"`):]
		if !strings.Contains(svg[:strings.Index(svg, "</svg>")], ">culprit +10.1 %<") {
			t.Error("the culprit's line is not labelled")
		}
	})
	t.Run("bounds of the level since the culprit", func(t *testing.T) {
		m := in.Chain.Metrics[slices.IndexFunc(in.Chain.Metrics, func(m gate.ChainMetric) bool { return m.Meta.Key == result.CPUPerIteration })]
		_, bounds, from := chainPoints(in.Chain.Links, m, 0)
		before := gate.ChainProduct(in.Chain.Links[:4], m.Meta).Change
		last := bounds[len(bounds)-1]
		if from != 4 || math.Abs(last[0]-gate.Compose(m.Meta, before, m.Level.Lo)) > 1e-9 || math.Abs(last[1]-gate.Compose(m.Meta, before, m.Level.Hi)) > 1e-9 {
			t.Errorf("from link %d, the last bounds %v are not the level's %+v since the culprit, from %v", from, last, m.Level, before)
		}
		if at := bounds[4]; math.Abs(at[0]-gate.Compose(m.Meta, before, 0.03)) > 1e-9 || math.Abs(at[1]-gate.Compose(m.Meta, before, 16.1)) > 1e-9 {
			t.Errorf("at the culprit the bounds %v are not its own A/B's", at)
		}
	})
	t.Run("a bound near zero keeps its sign", func(t *testing.T) {
		want := "(its own A/B: +10.1 %, 95 % bounds +0.03 % … +16.1 %)"
		if strings.Contains(out+html, "bounds ±") || strings.Contains(out+html, "… ±") || !strings.Contains(out, want) || !strings.Contains(html, strings.ReplaceAll(want, "+", "&#43;")) {
			t.Errorf("a bound of +0.03 %% is not shown as such:\n%s", out)
		}
	})
}
