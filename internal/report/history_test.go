package report

import (
	"bytes"
	"math"
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
	var text, page bytes.Buffer
	if err := WriteHistoryText(&text, in); err != nil {
		t.Fatal(err)
	}
	if err := WriteHistoryHTML(&page, in); err != nil {
		t.Fatal(err)
	}
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
