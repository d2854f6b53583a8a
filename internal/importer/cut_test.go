package importer_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// textReports are the text reports of every text format: the package's
// own test files and, when present, the shared real ones.
func textReports(t *testing.T) map[string][]string {
	t.Helper()
	files := map[string][]string{
		"vegeta-text": {"vegeta/testdata/report.txt", "vegeta/testdata/report-reset.txt", "vegeta/testdata/report-timeout.txt"},
		"wrk-text":    {"wrk/testdata/latency.txt", "wrk/testdata/sweep.txt", "wrk/testdata/wrk2.txt", "wrk/testdata/lua-done.txt"},
		"ab-text": {"ab/testdata/ab.txt", "ab/testdata/sweep.txt", "ab/testdata/resets.txt",
			// ab's one shared log that stops before its report is left out
			fixture("ab", "ChocolaterToba__WebBasics__ab_results.txt"), fixture("ab", "DeanRTaylor1__oxide__ab_results.txt"),
			fixture("ab", "Zadneprovski__HttpServer__ab.log")},
		"hey-text":        {"hey/testdata/hey.txt", "hey/testdata/timeout.txt"},
		"oha-text":        {"oha/testdata/oha.txt", "oha/testdata/oha-z.txt"},
		"bombardier-text": {"bombardier/testdata/mixed.txt", "bombardier/testdata/default.txt", "bombardier/testdata/reset.txt"},
	}
	for format, dirs := range map[string][]string{
		"vegeta-text": {"vegeta-report-text"}, "wrk-text": {"wrk", "wrk2"}, "hey-text": {"hey"},
	} {
		files[format] = append(files[format], importertest.SharedFixtureFiles(dirs...)...)
	}
	return files
}

// A text report cut anywhere, mid-line included, imports only what its
// complete lines say or is refused: every figure of a cut import is the
// whole file's (a figure derived anew, such as wrk's rate from its count
// and duration, within 0.5 %), a count is the whole file's or absent, and
// an import that differs from the whole file's says the file was cut.
// Cut mid-line, vegeta's "55.927ms" read as 55.927 minutes, wrk's
// "Requests/sec: 5527.14" as 5 and hey's error rate of 6.5 % as 0.
func TestTextReportsCutAnywhereKeepTheirFigures(t *testing.T) {
	t.Parallel()
	for format, paths := range textReports(t) {
		f, ok := importer.Lookup(format)
		if !ok {
			t.Fatalf("no format %s", format)
		}
		for _, path := range paths {
			if path == "" {
				continue // a shared fixture, absent here
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := importRuns(f, path, data)
			if err != nil {
				t.Errorf("%s: whole file: %v", path, err)
				continue
			}
			imported := 0
			for at := 1; at < len(data); at++ {
				if strings.TrimSpace(lastLine(data[:at])) == "" {
					continue // cut between lines: a file that ends there is whole to anyone
				}
				cut, err := importRuns(f, path, data[:at])
				if err != nil {
					continue
				}
				imported++
				if msg := cutKeepsFigures(whole, cut); msg != "" {
					t.Errorf("%s cut after byte %d (%q): %s", filepath.Base(path), at, lastLine(data[:at]), msg)
					break
				}
			}
			if imported == 0 {
				t.Errorf("%s: refused wherever it is cut", path)
			}
		}
	}
}

func importRuns(f importer.Format, path string, data []byte) ([]*result.Run, error) {
	if s, ok := f.(importer.Several); ok {
		return s.ImportAll(path, bytes.NewReader(data))
	}
	run, err := f.Import(path, bytes.NewReader(data))
	return []*result.Run{run}, err
}

func lastLine(b []byte) string {
	return string(b[bytes.LastIndexByte(b, '\n')+1:])
}

// cutKeepsFigures says how a cut file's runs contradict the whole file's,
// or "" when they do not.
func cutKeepsFigures(whole, cut []*result.Run) string {
	if len(cut) > len(whole) {
		return "more runs than the whole file"
	}
	for i, c := range cut {
		w := whole[i]
		for k, v := range c.Metrics {
			wv, ok := w.Metrics[k]
			if ok && within(v, wv) || k == result.RequestsPerSec && w.Window > 0 && within(v, float64(w.Requests.Total)/w.Window) {
				continue // the file's figure, or the rate derived from its count and duration
			}
			return "metric " + k + " changed: " + fmtFloat(v) + " for " + fmtFloat(wv)
		}
		if c.Requests.Counted&result.CountTotal != 0 && c.Requests.Total != w.Requests.Total {
			return "request count changed"
		}
		if c.Requests.Counted&result.CountRequests == result.CountRequests && c.Requests.Failed != w.Requests.Failed {
			return "failed count changed"
		}
		if c.Window != 0 && c.Window != w.Window {
			return "window changed"
		}
	}
	last := len(cut) - 1
	same := len(cut[last].Metrics) == len(whole[last].Metrics) && cut[last].Requests == whole[last].Requests
	if !same && !importertest.HasNote(cut[last], "file was cut") {
		return "differs from the whole file without a note that it was cut"
	}
	return ""
}

func within(a, b float64) bool { return math.Abs(a-b) <= 0.005*math.Abs(b) }

func fmtFloat(v float64) string { return fmt.Sprintf("%g", v) }

// fixture is a shared fixture's path; a missing one reads as no file.
func fixture(dir, file string) string {
	d, ok := importertest.SharedFixtures(dir)
	if !ok {
		return ""
	}
	return filepath.Join(d, file)
}

// A file of one request per row, cut inside a row (hey -o csv and ab -g
// were refused), imports its complete rows, every one, and notes the line
// it was cut in: wherever in the row the cut falls, even where what is
// left of the row would parse (an offset "0.12" of "0.1234").
func TestRowFilesCutMidRowImportTheirCompleteRows(t *testing.T) {
	t.Parallel()
	for format, path := range map[string]string{
		"hey-csv":    "hey/testdata/hey.csv",
		"ab-gnuplot": "ab/testdata/gnuplot.tsv",
	} {
		f, _ := importer.Lookup(format)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte{'\n'})
		checked := 0
		// Every byte of a row in the middle and of the last two rows.
		for _, cutIn := range []int{len(lines) / 2, len(lines) - 3, len(lines) - 2} {
			start := len(bytes.Join(lines[:cutIn], nil))
			for at := start + 1; at < start+len(lines[cutIn])-1; at++ {
				run, err := f.Import(path, bytes.NewReader(data[:at]))
				if err != nil {
					t.Fatalf("%s cut in line %d after byte %d: %v", path, cutIn+1, at, err)
				}
				if want := int64(cutIn - 1); run.Requests.Total != want { // less the header
					t.Fatalf("%s cut in line %d after byte %d: %d requests, want the %d complete rows", path, cutIn+1, at, run.Requests.Total, want)
				}
				if !importertest.HasNote(run, fmt.Sprintf("file was cut: line %d is incomplete", cutIn+1)) {
					t.Fatalf("%s cut in line %d: notes %q", path, cutIn+1, run.Notes)
				}
				checked++
			}
		}
		if checked < 60 {
			t.Errorf("%s: only %d cuts tried", path, checked)
		}
	}
}

// A JSON document (a summary) cut anywhere is refused, and the refusal
// says the file is cut: a summary holds one figure per key, and the keys
// after the cut are unknown.
func TestJSONSummariesCutAreRefusedAsCut(t *testing.T) {
	t.Parallel()
	for format, path := range map[string]string{
		"k6-summary-export": "k6/testdata/summary-export.json", "k6-handlesummary": "k6/testdata/handlesummary.json",
		"k6-summary": "k6/testdata/machine-summary-k6.json", "artillery-json": "artillery/testdata/v2.json",
		"bombardier-json": "bombardier/testdata/mixed.json", "oha-json": "oha/testdata/oha.json",
		"vegeta-json": "vegeta/testdata/report.json", "gatling-stats-json": "gatling/testdata/stats.json",
		"jmeter-statistics-json": "jmeter/testdata/statistics.json",
	} {
		f, _ := importer.Lookup(format)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		body := bytes.TrimRight(data, " \t\r\n")
		for i := 1; i < 20; i++ {
			at := len(body) * i / 20
			_, err := f.Import(path, bytes.NewReader(data[:at]))
			if err == nil || !strings.Contains(err.Error(), "cut") {
				t.Errorf("%s cut after byte %d of %d: err = %v; want a refusal that says the file is cut", path, at, len(data), err)
				break
			}
		}
	}
}

// A text report pasted in a README, whose last line (a closing fence, a
// sentence) has no line break, imports as the report alone: hey's and
// oha's lost their request counts and error rate, taken for a report cut
// in its status code distribution.
func TestTextReportPastedWithoutFinalLineBreakKeepsItsFigures(t *testing.T) {
	t.Parallel()
	checked := 0
	for format, paths := range textReports(t) {
		f, _ := importer.Lookup(format)
		for _, path := range paths {
			if path == "" {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := importRuns(f, path, data)
			if err != nil {
				continue // a log no report was read from
			}
			report := strings.TrimRight(string(data), "\r\n") + "\n"
			for _, tail := range []string{"```", "Measured on a laptop."} {
				md := "# Benchmark\n\n```\n" + report + map[bool]string{true: "```\n\n"}[tail != "```"] + tail
				got, err := importRuns(f, path+".md", []byte(md))
				if err != nil {
					t.Errorf("%s in a README ending %q: %v", path, tail, err)
					continue
				}
				checked++
				last, want := got[len(got)-1], whole[len(whole)-1]
				if last.Requests != want.Requests || !reflect.DeepEqual(last.Metrics, want.Metrics) {
					t.Errorf("%s in a README ending %q without a line break: %+v %v, want %+v %v",
						filepath.Base(path), tail, last.Requests, last.Metrics, want.Requests, want.Metrics)
				}
				if format != "vegeta-text" && format != "bombardier-text" && importertest.HasNote(last, "cut") {
					t.Errorf("%s in a README ending %q: notes %q, want none that it was cut", filepath.Base(path), tail, last.Notes)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d READMEs checked", checked)
	}
}
