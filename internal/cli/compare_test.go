package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// k6Summary is a small k6 --summary-export file: 200 requests in 10 s,
// 2 failed, 50 iterations.
const k6Summary = `{
  "root_group": {"name": "", "path": "", "id": "d41d8cd98f00b204e9800998ecf8427e", "groups": {}, "checks": {}},
  "metrics": {
    "http_reqs": {"count": 200, "rate": 20},
    "http_req_duration": {"avg": 21.5, "min": 2, "med": 18, "max": 140, "p(90)": 40, "p(95)": 55.5},
    "http_req_failed": {"passes": 2, "fails": 198, "value": 0.01},
    "iterations": {"count": 50, "rate": 5},
    "iteration_duration": {"avg": 1100, "min": 1000, "med": 1090, "max": 1500, "p(90)": 1200, "p(95)": 1300},
    "vus": {"value": 1, "min": 1, "max": 4}
  }
}
`

func TestComparePassAndRegression(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base1 := writeResult(t, dir, "base1.json", synthResult(5, 1, synthHash))
	base2 := writeResult(t, dir, "base2.json", synthResult(5, 1, synthHash))
	same := writeResult(t, dir, "same.json", synthResult(5, 1, synthHash))
	slow := writeResult(t, dir, "slow.json", synthResult(5, 0.7, synthHash))

	o := tailgate(t, "compare", base1, base2, "--", same)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "PASS", "2 file(s), 10 runs")

	o = tailgate(t, "compare", base1, base2, "--", slow)
	wantCode(t, o, 1)
	wantContains(t, "stdout", o.stdout, "REGRESSION", "iterations/s")
}

func TestCompareWritesReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeResult(t, dir, "base.json", synthResult(10, 1, synthHash))
	slow := writeResult(t, dir, "slow.json", synthResult(5, 0.7, synthHash))
	rep, md, page := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html")

	o := tailgate(t, "compare", "--report", rep, "--markdown", md, "--html", page, base, "--", slow)
	wantCode(t, o, 1)
	wantContains(t, "report.json", string(mustRead(t, rep)), `"verdict": "regression"`, `"mode": "compare"`)
	wantContains(t, "markdown", string(mustRead(t, md)), "regression in iterations/s", "```mermaid")
	html := string(mustRead(t, page))
	wantContains(t, "HTML report", html, "<!doctype html>", "regression in iterations/s", "<svg ", "Content-Security-Policy")
	if strings.Contains(html, "<script") {
		t.Error("the HTML report holds a script")
	}
}

func TestCompareNeedsSeparator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeResult(t, dir, "a.json", synthResult(5, 1, synthHash))
	b := writeResult(t, dir, "b.json", synthResult(5, 1, synthHash))
	needSides := "BASE... -- HEAD..."
	needFiles := "at least one file on each side of --"
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no separator":  {[]string{"compare", a, b}, needSides},
		"no files":      {[]string{"compare"}, needSides},
		"no head files": {[]string{"compare", a, "--"}, needFiles},
		// A leading -- ends the flags and still separates the sides.
		"no base files": {[]string{"compare", "--", b}, needFiles},
	} {
		t.Run(name, func(t *testing.T) {
			o := tailgate(t, c.args...)
			wantCode(t, o, 2)
			wantContains(t, "stderr", o.stderr, c.want)
		})
	}
}

// A foreign file compared with itself passes: the importer detects k6's
// summary export by its content.
func TestCompareK6SummaryWithItself(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k6 := filepath.Join(dir, "k6-summary.json")
	mustWrite(t, k6, k6Summary)

	o := tailgate(t, "compare", k6, "--", k6)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "1 file(s), 1 runs")
	if strings.Contains(o.stdout, "REGRESSION") {
		t.Errorf("a file compared with itself regressed:\n%s", o.stdout)
	}
}

func TestCompareGarbageFileIsUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.txt")
	mustWrite(t, junk, "\x00\x01 not a result in any format\n")
	good := writeResult(t, dir, "good.json", synthResult(5, 1, synthHash))

	o := tailgate(t, "compare", good, "--", junk)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, junk)
}

// The gate settings of -c apply: a floor larger than the drop passes it.
func TestCompareTakesGateFromConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeResult(t, dir, "base.json", synthResult(10, 1, synthHash))
	slow := writeResult(t, dir, "slow.json", synthResult(5, 0.7, synthHash))
	cfg := filepath.Join(dir, "gate.yml")
	mustWrite(t, cfg, benchConfig("synthetic", "http://127.0.0.1:1", 0)+"gate:\n  floors:\n    iterations_per_s: 50\n")

	o := tailgate(t, "compare", "-c", cfg, base, "--", slow)
	wantCode(t, o, 0)
	if strings.Contains(o.stdout, "REGRESSION") {
		t.Errorf("a 30 %% drop inside a 50 %% floor was called a regression:\n%s", o.stdout)
	}
}

func TestCompareFlagsAfterFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeResult(t, dir, "a.json", synthResult(5, 1, synthHash))
	b := writeResult(t, dir, "b.json", synthResult(5, 1, synthHash))
	rep := dir + "/r.json"
	o := tailgate(t, "compare", a, "--", b, "--report", rep)
	wantCode(t, o, 0)
	if _, err := os.Stat(rep); err != nil {
		t.Fatalf("--report after the files was not honoured: %v", err)
	}
}
