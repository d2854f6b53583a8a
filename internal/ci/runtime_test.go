package ci

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stepFiles makes a step's GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files.
func stepFiles(t *testing.T) (env map[string]string, output, summary string) {
	dir := t.TempDir()
	output, summary = filepath.Join(dir, "set_output"), filepath.Join(dir, "step_summary")
	return map[string]string{"GITHUB_OUTPUT": output, "GITHUB_STEP_SUMMARY": summary}, output, summary
}

// parseOutputFile reads GITHUB_OUTPUT the way the runner does: NAME=VALUE
// lines and NAME<<DELIM heredocs ending at a line equal to DELIM.
func parseOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("output %s: matching delimiter not found", name)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, _ := strings.Cut(lines[i], "=")
		out[name] = val
	}
	return out
}

func TestWriteOutputs(t *testing.T) {
	t.Parallel()
	env, output, _ := stepFiles(t)
	r := NewRuntime(&bytes.Buffer{}, mapEnv(env))
	err := r.WriteOutputs(Outputs{Verdict: "regression", Regressions: 2, ReportPath: "/tmp/tailgate/report.json",
		HTMLPath: "/tmp/tailgate/report.html", CommentURL: "https://github.com/o/r/pull/1#issuecomment-5",
		TargetLog: "/tmp/tailgate/base.log\n/tmp/tailgate/head.log"})
	if err != nil {
		t.Fatalf("WriteOutputs: %v", err)
	}
	got := parseOutputFile(t, output)
	want := map[string]string{"verdict": "regression", "regressions": "2", "report_path": "/tmp/tailgate/report.json",
		"html_path": "/tmp/tailgate/report.html", "comment_url": "https://github.com/o/r/pull/1#issuecomment-5",
		"target_log": "/tmp/tailgate/base.log\n/tmp/tailgate/head.log"}
	if len(got) != len(want) {
		t.Errorf("outputs = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("output %s = %q, want %q", k, got[k], v)
		}
	}
}

// Each output is a heredoc with a random delimiter: a value holding the
// fixed delimiter go-githubactions writes, or lines that look like
// entries, reads back as it was written, and two outputs never share a
// delimiter.
func TestSetOutputDelimiterIsRandom(t *testing.T) {
	t.Parallel()
	env, output, _ := stepFiles(t)
	r := NewRuntime(&bytes.Buffer{}, mapEnv(env))
	evil := "x\n_GitHubActionsFileCommandDelimeter_\nverdict=pass\nEOF"
	if err := r.SetOutput(OutputReportPath, evil); err != nil {
		t.Fatal(err)
	}
	if err := r.SetOutput(OutputVerdict, "regression"); err != nil {
		t.Fatal(err)
	}
	got := parseOutputFile(t, output)
	if got[OutputReportPath] != evil || got[OutputVerdict] != "regression" || len(got) != 2 {
		t.Errorf("outputs = %q, want report_path %q and verdict regression", got, evil)
	}
	data, _ := os.ReadFile(output)
	var delims []string
	for _, line := range strings.Split(string(data), "\n") {
		if _, d, ok := strings.Cut(line, "<<"); ok {
			delims = append(delims, d)
		}
	}
	if len(delims) != 2 || delims[0] == delims[1] || len(delims[0]) < 32 {
		t.Errorf("delimiters %q: want two distinct random ones", delims)
	}
	if err := r.SetOutput("bad=name", "v"); err == nil {
		t.Error("SetOutput accepted a name with '='")
	}
}

func TestFileCommandsOutsideAStepReturnErrors(t *testing.T) {
	t.Parallel()
	r := NewRuntime(&bytes.Buffer{}, mapEnv(nil))
	if err := r.SetOutput(OutputVerdict, "pass"); !errors.Is(err, ErrNotInStep) {
		t.Errorf("SetOutput without GITHUB_OUTPUT: %v, want ErrNotInStep", err)
	}
	if _, err := r.AddStepSummary("# hi"); !errors.Is(err, ErrNotInStep) {
		t.Errorf("AddStepSummary without GITHUB_STEP_SUMMARY: %v, want ErrNotInStep", err)
	}
	// A path that cannot be opened makes go-githubactions panic; we return an error.
	bad := map[string]string{"GITHUB_OUTPUT": filepath.Join(t.TempDir(), "missing", "dir", "out")}
	if err := NewRuntime(&bytes.Buffer{}, mapEnv(bad)).SetOutput(OutputVerdict, "pass"); err == nil {
		t.Error("SetOutput to an unopenable path returned nil")
	}
}

func TestAddStepSummary(t *testing.T) {
	t.Parallel()
	env, _, summary := stepFiles(t)
	r := NewRuntime(&bytes.Buffer{}, mapEnv(env))
	cut, err := r.AddStepSummary("## tailgate: pass\n")
	if err != nil || cut {
		t.Fatalf("AddStepSummary = %v, %v", cut, err)
	}
	data, _ := os.ReadFile(summary)
	if string(data) != "## tailgate: pass\n\n" {
		t.Errorf("summary = %q", data)
	}
}

func TestAddStepSummaryStaysUnderOneMiB(t *testing.T) {
	t.Parallel()
	env, _, summary := stepFiles(t)
	// An earlier write in the same step already used 300 KiB.
	if err := os.WriteFile(summary, bytes.Repeat([]byte("earlier line\n"), 300*1024/13), 0o600); err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	md.WriteString("## tailgate\n\n<details><summary>runs</summary>\n\n| run | p99 |\n|---|---|\n")
	for i := 0; md.Len() < 2*SummaryLimit; i++ {
		md.WriteString("| run with a long description | 12.5 ms |\n")
	}
	md.WriteString("</details>\n")
	r := NewRuntime(&bytes.Buffer{}, mapEnv(env))
	cut, err := r.AddStepSummary(md.String())
	if err != nil || !cut {
		t.Fatalf("AddStepSummary = %v, %v; want a truncated summary", cut, err)
	}
	st, err := os.Stat(summary)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > SummaryLimit {
		t.Errorf("summary file is %d bytes, over the %d limit", st.Size(), SummaryLimit)
	}
	if st.Size() < SummaryLimit-64*1024 {
		t.Errorf("summary file is %d bytes; the cut wasted more than 64 KiB", st.Size())
	}
	data, _ := os.ReadFile(summary)
	if !strings.Contains(string(data), "cut to stay under GitHub's 1 MiB job summary limit") ||
		strings.Count(string(data), "<details>") != strings.Count(string(data), "</details>") {
		t.Errorf("summary end: %q", data[len(data)-300:])
	}
}

func TestWorkflowCommands(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	r := NewRuntime(&log, mapEnv(nil))
	r.AddMask("ghs_s3cret")
	r.AddMask("") // nothing to mask: no command
	r.Group("run 1/5")
	r.EndGroup()
	r.Errorf("GET /items p99 regressed", "p99 %s: +%d%% (50%% threshold)\nsee summary", "12ms→16ms", 33)
	r.Warningf("noisy", "cv %.0f%%", 12.0)
	r.Noticef("", "baseline from %s", "3a9c5e7")
	want := "::add-mask::ghs_s3cret\n" +
		"::group::run 1/5\n" +
		"::endgroup::\n" +
		"::error title=GET /items p99 regressed::p99 12ms→16ms: +33%25 (50%25 threshold)%0Asee summary\n" +
		"::warning title=noisy::cv 12%25\n" +
		"::notice::baseline from 3a9c5e7\n"
	if log.String() != want {
		t.Errorf("log =\n%s\nwant\n%s", log.String(), want)
	}
	if r.Err() != nil {
		t.Errorf("Err = %v", r.Err())
	}
}

// Each secret is registered once, however often it is given (the token,
// and the values a benchmark reads, compiled once per benchmark run); one
// of several lines line by line, since the runner masks each log line on
// its own; blank lines are no secret.
func TestAddMaskRegistersEachSecretOnce(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	r := NewRuntime(&log, mapEnv(nil))
	for _, s := range []string{"k3y-1", "k3y-1", "line-a\r\nline-b\n\n  \n", "line-b", "%value\x00"} {
		r.AddMask(s)
	}
	want := "::add-mask::k3y-1\n::add-mask::line-a\n::add-mask::line-b\n::add-mask::%25value\x00\n"
	if log.String() != want {
		t.Errorf("log =\n%q\nwant\n%q", log.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWorkflowCommandWriteFailureIsAnError(t *testing.T) {
	t.Parallel()
	r := NewRuntime(failingWriter{}, mapEnv(nil))
	r.Errorf("t", "boom")
	r.Warningf("t", "again")
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Err = %v, want the write failure", err)
	}
}
