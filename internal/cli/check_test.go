package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckWithoutBaselinePasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 1, synthHash))
	bl := filepath.Join(dir, "baseline.json")

	o := tailgate(t, "check", "--result", head, "--baseline", bl)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "PASS", "no baseline")
	wantNoFile(t, bl) // check never records
}

func TestCheckEqualHeadPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 1, synthHash))
	bl := writeBaseline(t, dir, "baseline.json", synthBaseline(6, 5, synthHash))

	o := tailgate(t, "check", "--result", head, "--baseline", bl)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "synthetic: PASS", "30 baseline samples")
	if strings.Contains(o.stdout, "REGRESSION") {
		t.Errorf("an equal head is reported as a regression:\n%s", o.stdout)
	}
	golden(t, "check-pass.txt", o.stdout, dir)
	// The same inputs give the same report: nothing in it depends on time.
	again := tailgate(t, "check", "--result", head, "--baseline", bl)
	if again.stdout != o.stdout {
		t.Errorf("two checks of the same files print different reports:\n%s\n---\n%s", o.stdout, again.stdout)
	}
}

func TestCheckThroughputDropIsRegression(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 0.7, synthHash))
	bl := writeBaseline(t, dir, "baseline.json", synthBaseline(6, 5, synthHash))

	o := tailgate(t, "check", "--result", head, "--baseline", bl)
	wantCode(t, o, 1)
	wantContains(t, "stdout", o.stdout, "synthetic: REGRESSION", "regression in iterations/s")
	wantContains(t, "stderr", o.stderr, "tailgate check: regression in iterations/s") // the metric's name, not its key
	golden(t, "check-regression.txt", o.stdout, dir)
}

// An improvement never fails.
func TestCheckThroughputGainPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 1.3, synthHash))
	bl := writeBaseline(t, dir, "baseline.json", synthBaseline(6, 5, synthHash))

	o := tailgate(t, "check", "--result", head, "--baseline", bl)
	wantCode(t, o, 0)
	if strings.Contains(o.stdout, "REGRESSION") {
		t.Errorf("an improvement is reported as a regression:\n%s", o.stdout)
	}
}

func TestCheckChangedDefinitionIsInconclusive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 0.7, "sha256:definition-2"))
	bl := writeBaseline(t, dir, "baseline.json", synthBaseline(6, 5, synthHash))

	o := tailgate(t, "check", "--result", head, "--baseline", bl)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "INCONCLUSIVE", "benchmark changed")

	o = tailgate(t, "check", "--result", head, "--baseline", bl, "--fail-on-inconclusive")
	wantCode(t, o, 1)
	wantContains(t, "stdout", o.stdout, "INCONCLUSIVE")
	wantContains(t, "stderr", o.stderr, "fail-on-inconclusive")
}

func TestCheckCorruptBaselineIsRuntimeFailureAndLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 1, synthHash))
	for name, content := range map[string]string{
		"truncated":  `{"schema": 1, "benchmark": "synthetic", "samples": [`,
		"not json":   "this is not a baseline\n",
		"new schema": `{"schema": 99, "benchmark": "synthetic"}`,
	} {
		t.Run(name, func(t *testing.T) {
			bl := filepath.Join(t.TempDir(), "baseline.json")
			mustWrite(t, bl, content)
			o := tailgate(t, "check", "--result", head, "--baseline", bl)
			wantCode(t, o, 3)
			wantContains(t, "stderr", o.stderr, bl)
			if got := string(mustRead(t, bl)); got != content {
				t.Errorf("the corrupt baseline was changed:\n%q\nwant\n%q", got, content)
			}
		})
	}
}

func TestCheckWritesReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 0.7, synthHash))
	bl := writeBaseline(t, dir, "baseline.json", synthBaseline(6, 5, synthHash))
	reportPath := filepath.Join(dir, "report.json")
	mdPath := filepath.Join(dir, "report.md")

	o := tailgate(t, "check", "--result", head, "--baseline", bl, "--report", reportPath, "--markdown", mdPath)
	wantCode(t, o, 1)

	var rep struct {
		Schema       int      `json:"schema"`
		Benchmark    string   `json:"benchmark"`
		Verdict      string   `json:"verdict"`
		Regressions  []string `json:"regressions"`
		HeadRuns     int      `json:"head_runs"`
		BaselineRuns int      `json:"baseline_runs"`
		Metrics      []struct {
			Key     string `json:"key"`
			Verdict string `json:"verdict"`
		} `json:"metrics"`
	}
	data := mustRead(t, reportPath)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report.json does not parse: %v\n%s", err, data)
	}
	if rep.Schema != 1 || rep.Benchmark != "synthetic" || rep.Verdict != "regression" {
		t.Errorf("report: schema %d, benchmark %q, verdict %q; want 1, synthetic, regression", rep.Schema, rep.Benchmark, rep.Verdict)
	}
	if rep.HeadRuns != 5 || rep.BaselineRuns != 30 {
		t.Errorf("report counts %d head runs and %d baseline runs, want 5 and 30", rep.HeadRuns, rep.BaselineRuns)
	}
	if !slices.Contains(rep.Regressions, "iterations_per_s") {
		t.Errorf("report regressions %v lack iterations_per_s", rep.Regressions)
	}
	found := false
	for _, m := range rep.Metrics {
		if m.Key == "iterations_per_s" {
			found = true
			if m.Verdict != "regression" {
				t.Errorf("iterations_per_s verdict %q, want regression", m.Verdict)
			}
		}
	}
	if !found {
		t.Errorf("report has no iterations_per_s metric: %s", data)
	}

	md := string(mustRead(t, mdPath))
	wantContains(t, "markdown report", md, "<!-- tailgate:synthetic -->", "synthetic", "regression in iterations/s")
}

// The JSON report of a passing check says pass; the Markdown says it too.
func TestCheckReportOfPass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := writeResult(t, dir, "head.json", synthResult(5, 1, synthHash))
	bl := writeBaseline(t, dir, "baseline.json", synthBaseline(6, 5, synthHash))
	reportPath := filepath.Join(dir, "report.json")
	mdPath := filepath.Join(dir, "report.md")

	o := tailgate(t, "check", "--result", head, "--baseline", bl, "--report", reportPath, "--markdown", mdPath)
	wantCode(t, o, 0)
	var rep struct{ Verdict string }
	if err := json.Unmarshal(mustRead(t, reportPath), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "pass" {
		t.Errorf("verdict %q, want pass", rep.Verdict)
	}
	wantContains(t, "markdown report", string(mustRead(t, mdPath)), "pass")
}

func TestCheckMissingResultIsUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := tailgate(t, "check", "--result", filepath.Join(dir, "nope.json"), "--baseline", filepath.Join(dir, "b.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "nope.json")
}

func TestCheckResultOfOtherSchemaIsUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := filepath.Join(dir, "head.json")
	mustWrite(t, head, `{"schema": 7, "benchmark": "x", "runs": []}`)
	o := tailgate(t, "check", "--result", head, "--baseline", filepath.Join(dir, "b.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "head.json", "schema 7")
}

// check runs the benchmark itself when no --result is given.
func TestCheckRunsBenchmark(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	out := filepath.Join(dir, "head.json")

	o := tailgate(t, "check", "-q", "-c", cfg, "--baseline", filepath.Join(dir, "b.json"), "-o", out)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "items: PASS", "no baseline")
	res := mustRead(t, out)
	if !bytes.Contains(res, []byte(`"benchmark": "items"`)) {
		t.Errorf("-o did not write the runs' result: %s", res)
	}
}
