package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtureRuns builds n deterministic runs whose throughput is scaled by
// tput; with steps and error classes when detailed.
func fixtureRuns(n int, tput float64, detailed bool) []result.Run {
	out := make([]result.Run, n)
	for i := range out {
		wobble := 1 + 0.004*float64((7*i)%n-n/2) // distinct values, ±6 % at most
		r := result.Run{Index: i, Metrics: map[string]float64{
			result.IterationsPerSec: 100 * tput * wobble,
			result.RequestsPerSec:   400 * tput * wobble,
			result.LatencyP50:       10 * wobble,
			result.LatencyP95:       50 / wobble,
			result.LatencyP99:       80 / wobble,
			result.RequestErrorPct:  0,
			result.LifecycleSuccess: 100,
		}}
		if detailed {
			r.Steps = []result.Step{fixtureStep("create", 400, 0, 10*time.Millisecond), fixtureStep("assign | resolve", 400, 3, 20*time.Millisecond)}
			r.Errors = []result.ErrorClass{{Class: result.ErrStatus, Step: "assign | resolve", Count: 3, Sample: "409 <INVALID ACTION>"}}
			r.Metrics[result.RequestErrorPct] = 0.375
		}
		out[i] = r
	}
	return out
}

func fixtureStep(name string, requests, failed int64, base time.Duration) result.Step {
	h := hist.New()
	for i := range 100 {
		h.Record(base + time.Duration(i)*base/50)
	}
	return result.Step{Name: name, Requests: requests, Failed: failed, Latency: h}
}

// abRuns builds n pairs of A/B runs: head's throughput scaled by tput and
// its p95 by p95, with a wobble that differs between the sides so that the
// pairs' differences spread.
func abRuns(n int, tput, p95 float64) (base, head []result.Run) {
	for i := range n {
		wb, wh := 1+0.01*float64((3*i)%5-2), 1+0.01*float64((2*i+1)%5-2)
		base = append(base, result.Run{Index: i, Metrics: map[string]float64{
			result.IterationsPerSec: 100 * wb, result.LatencyP95: 50 / wb, result.RequestErrorPct: 0, result.LifecycleSuccess: 100,
		}})
		head = append(head, result.Run{Index: i, Metrics: map[string]float64{
			result.IterationsPerSec: 100 * tput * wh, result.LatencyP95: 50 * p95 / wh, result.RequestErrorPct: 0, result.LifecycleSuccess: 100,
		}})
		base[i].Steps, head[i].Steps = abSteps(1, 0), abSteps(p95, 4)
	}
	return base, head
}

// abSteps are seven steps of one A/B run: on the head side "list" slower
// by slow, "update" failing failed of its requests and "login" 2 % faster;
// the others as on the base side.
func abSteps(slow float64, failed int64) []result.Step {
	login := 40 * time.Millisecond
	if failed > 0 {
		login = login * 98 / 100
	}
	return []result.Step{
		fixtureStep("login", 100, 0, login),
		fixtureStep("create", 400, 0, 10*time.Millisecond),
		fixtureStep("list", 400, 0, time.Duration(slow*float64(5*time.Millisecond))),
		fixtureStep("get", 400, 0, 3*time.Millisecond),
		fixtureStep("update", 400, failed, 8*time.Millisecond),
		fixtureStep("search", 400, 0, 12*time.Millisecond),
		fixtureStep("delete", 400, 0, 4*time.Millisecond),
	}
}

// origins are the commits of n baseline samples, three runs a job.
func origins(n int) []Origin {
	out := make([]Origin, n)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range out {
		job := i / 3
		out[i] = Origin{Commit: fmt.Sprintf("%07x%033d", 0xa1b2c3+job*0x1111, job), Ref: "main",
			Job: fmt.Sprintf("run-%d", job), Time: t0.Add(time.Duration(job) * 6 * time.Hour)}
	}
	return out
}

func cases() map[string]Input {
	base, slow := fixtureRuns(30, 1, false), fixtureRuns(5, 0.8, true)
	same := fixtureRuns(5, 1.01, false)
	abBase, abHead := abRuns(8, 0.88, 1.3)
	seq := gate.JudgeSequential(abBase, abHead, gate.Policy{Alpha: 0.05}, stats.SeqDesign{MinBlocks: 6, MaxBlocks: 8}, true, gate.SeqOptions{})
	return map[string]Input{
		"regression": {Name: "api", Mode: "check", BaselineSource: "baselines/api.json at origin/main",
			Verdict: gate.Judge(base, slow, gate.Policy{BaselineJobs: 6}), Head: slow, Base: base, BaseOrigins: origins(len(base)),
			Notes:     []string{"fork PR: comment not posted, see the job summary"},
			TargetLog: TargetLogs{Head: "/home/runner/work/_temp/tailgate-api-target-2871.log"}},
		"pass": {Name: "api", Mode: "compare", BaselineSource: "base.json",
			Verdict: gate.Judge(base, same, gate.Policy{BaselineJobs: 6}), Head: same, Base: base},
		"ab": {Name: "api", Mode: "ab", BaselineSource: "the base target, measured in this job",
			Verdict: seq, Head: abHead, Base: abBase,
			TargetLog: TargetLogs{Base: "/tmp/tailgate-api-target-base-77.log", Head: "/tmp/tailgate-api-target-head-78.log"}},
		"nobaseline": {Name: "api", Mode: "check", Verdict: gate.Judge(nil, slow, gate.Policy{}), Head: slow},
		"changed": {Name: "api", Mode: "check", BaselineSource: "baselines/api.json",
			Verdict: gate.Judge(base, slow, gate.Policy{Context: gate.Context{DefinitionChanged: true}})},
		"toofew": {Name: "api", Mode: "compare", BaselineSource: "one.json",
			Verdict: gate.Judge(base[:1], slow[:1], gate.Policy{}), Head: slow[:1], Base: base[:1]},
		"sequential": {Name: "api", Mode: "ab", BaselineSource: "the base target, measured in this job",
			Verdict: gate.JudgeSequential(base[:8], fixtureRuns(8, 0.8, false), gate.Policy{Alpha: 0.05}, stats.SeqDesign{}, false, gate.SeqOptions{}), Head: slow},
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for name, in := range cases() {
		var txt, js bytes.Buffer
		if err := WriteText(&txt, in); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, in); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".txt", txt.String())
		golden(t, name+".md", Markdown(in))
		golden(t, name+".json", js.String())
	}
}

func golden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./internal/report -update rewrites it):\n--- got ---\n%s\n--- want ---\n%s", file, got, want)
	}
}

// Every report names the target logs, each side's in A/B and one file
// once when one target served both sides; none when tailgate started no
// target.
func TestReportsNameTheTargetLogs(t *testing.T) {
	t.Parallel()
	render := func(in Input) map[string]string {
		var txt, js, page bytes.Buffer
		if err := WriteText(&txt, in); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, in); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&page, in); err != nil {
			t.Fatal(err)
		}
		return map[string]string{"text": txt.String(), "markdown": Markdown(in), "html": page.String(), "json": js.String()}
	}
	ab := cases()["ab"]
	for kind, out := range render(ab) {
		for _, want := range []string{"base target is in /tmp/tailgate-api-target-base-77.log", "head target is in /tmp/tailgate-api-target-head-78.log"} {
			if kind == "json" {
				want = want[strings.Index(want, "/tmp"):]
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q", kind, want)
			}
		}
	}
	aa := ab
	aa.TargetLog = TargetLogs{Base: "/tmp/one.log", Head: "/tmp/one.log"}
	if md := Markdown(aa); strings.Count(md, "/tmp/one.log") != 1 || !strings.Contains(md, "The output of the target tailgate started is in /tmp/one.log") {
		t.Errorf("one target on both sides is not named once:\n%s", md)
	}
	none := cases()["pass"]
	for kind, out := range render(none) {
		if strings.Contains(out, "target_log") || strings.Contains(out, "The output of the") {
			t.Errorf("%s report names a target log where tailgate started no target", kind)
		}
	}
}

func TestMarkdownContent(t *testing.T) {
	t.Parallel()
	in := cases()["regression"]
	md := Markdown(in)
	lines := strings.Split(md, "\n")
	if lines[0] != "<!-- tailgate:api -->" || !strings.HasPrefix(lines[1], "### ❌ tailgate · api: regression in iterations/s") {
		t.Errorf("marker and one-line verdict must come first:\n%s", strings.Join(lines[:2], "\n"))
	}
	for _, want := range []string{
		"| gated metric | verdict | change | p | floor | baseline → head |",
		"| **iterations/s** | ❌ **regression** | −19.8 % | <0.001 | 6.7 % (default) | 99.80/s → 80.00/s |",
		"<details><summary>3 reported-only metrics (not gated)</summary>", "| requests/s | 399.2/s → 320.0/s |",
		"```mermaid\n" + chartColors + "\nxychart-beta\n",
		"With 5 runs against 30 baseline samples this gate detects a drop of ≥",
		"(80 % power)", "floors not calibrated", "<details>", "</details>",
		`assign \| resolve`, "409 &lt;INVALID ACTION&gt;",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Text outside code spans is escaped so that it cannot inject HTML.
	if got := mdText("@team see [x](http://e) ![i](http://e)"); strings.Contains(got, "@t") || !strings.Contains(got, `\[x\](`) || !strings.Contains(got, `\!\[i\]`) {
		t.Errorf("mdText left a mention or a link: %q", got)
	}
	if got := mdText("a <b>|c"); got != `a &lt;b&gt;\|c` {
		t.Errorf("mdText = %q", got)
	}
}

func TestMarker(t *testing.T) {
	t.Parallel()
	got := Marker("my bench --> x\nnext")
	inner := strings.TrimSuffix(strings.TrimPrefix(got, "<!--"), "-->")
	if strings.Count(got, "-->") != 1 || strings.Contains(inner, "--") || strings.Contains(got, "\n") {
		t.Errorf("Marker must stay one hidden HTML comment: %q", got)
	}
	if !strings.HasPrefix(Marker("api"), MarkerPrefix) {
		t.Error("Marker must start with MarkerPrefix")
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestJSONNullsAndSchema(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, cases()["nobaseline"]); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["schema"] != float64(JSONSchemaVersion) || got["verdict"] != "pass" {
		t.Errorf("schema/verdict: %v %v", got["schema"], got["verdict"])
	}
	m := got["metrics"].([]any)[0].(map[string]any)
	if m["baseline_median"] != nil || m["change"] != nil || m["head_median"] == nil {
		t.Errorf("a missing baseline must be null, never 0: %v", m)
	}
	if num(math.NaN()) != nil || num(math.Inf(1)) != nil || *num(2) != 2 {
		t.Error("num must map NaN and Inf to null")
	}
}

// A throughput the open-loop load fixes reads "set by the load" and is
// not claimed as detectable; a sequential report says how many pairs ran,
// why it stopped and what the design can see within its budget.
func TestSetByLoadAndSequentialText(t *testing.T) {
	t.Parallel()
	base, head := fixtureRuns(30, 1, false), fixtureRuns(5, 1, false)
	for _, runs := range [][]result.Run{base, head} {
		for i := range runs {
			runs[i].SetByLoad = []string{result.IterationsPerSec, result.RequestsPerSec}
		}
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, Input{Name: "api", Verdict: gate.Judge(base, head, gate.Policy{BaselineJobs: 6})}); err != nil {
		t.Fatal(err)
	}
	s := txt.String()
	if !strings.Contains(s, "set by the load") || strings.Contains(s, "in iterations/s") || strings.Contains(s, "in requests/s") {
		t.Errorf("a throughput set by the load:\n%s", s)
	}
	seq := cases()["sequential"]
	md := Markdown(seq)
	for _, want := range []string{"Sequential A/B: 8 blocks (first look at 4, budget 20): regression after 8 blocks in iterations/s.",
		"With up to 20 blocks this gate detects a drop of ≥", `worse, estimate beyond half of min\_effect after 4 blocks`,
		"| gated metric | verdict | change | bounds | min_effect | base → head |", "| [−27.9 … −3.7] % | 5.0 % |", // A/B words, no p
		"| metric | base → head | change | note |"} {
		if !strings.Contains(md, want) {
			t.Errorf("sequential markdown lacks %q:\n%s", want, md)
		}
	}
	for _, unwanted := range []string{"| floor |", "| p |", "(min_effect)"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("sequential markdown has %q, a word of stored-baseline comparisons:\n%s", unwanted, md)
		}
	}
}

// The calibration report claims no detectable effect for a metric the load
// fixes (an open-loop iterations/s that never varied) and leaves it out of
// the gated count.
func TestCalibrationReportSetByLoad(t *testing.T) {
	t.Parallel()
	c := Calibration{Name: "api", Path: "b.json", Jobs: 10, Runs: 5, Samples: 30, BaselineJobs: 6, Alpha: 0.05,
		Gated:     []string{result.IterationsPerSec, result.LatencyP95, result.RequestsPerSec},
		SetByLoad: []string{result.IterationsPerSec, result.RequestsPerSec},
		Noise: map[string]stats.Noise{result.IterationsPerSec: {Jobs: 10, Runs: 5}, result.LatencyP95: {SigmaW: 0.1, SigmaB: 0.05, Jobs: 10, Runs: 5},
			result.RequestsPerSec: {Jobs: 10, Runs: 5}}}
	var b bytes.Buffer
	if err := WriteCalibration(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "1 gated metrics") || strings.Count(out, "set by the load") != 2 || strings.Contains(out, "−1.0 %") {
		t.Errorf("calibration report:\n%s", out)
	}
	c.SetByLoad = nil // an imported rate that never varied: no claim either
	b.Reset()
	if err := WriteCalibration(&b, c); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Count(out, "– (no variation)") != 2 {
		t.Errorf("calibration report without set-by-load:\n%s", out)
	}
}
