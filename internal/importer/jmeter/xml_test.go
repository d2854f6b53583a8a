package jmeter

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestXMLNestedSamples(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, XMLFormat{}, "testdata/transactions.xml")
	// Checkout is a transaction: excluded, its two children count; the
	// redirect hops inside GET /cart fold into it.
	if run.Requests.Total != 5 || run.Requests.Failed != 2 {
		t.Fatalf("requests = %+v, want 5 total, 2 failed", run.Requests)
	}
	if got := strings.Join(importertest.StepNames(run), "|"); got != "GET /cart|POST /pay|GET /health|Action = <EOF>" {
		t.Errorf("steps = %s", got)
	}
	if run.Window != 1.22 {
		t.Errorf("window = %v, want 1.22", run.Window)
	}
	want := []result.ErrorClass{
		{Class: result.ErrExpect, Step: "POST /pay", Count: 1, Sample: "Test failed: text expected to contain /paid/"},
		{Class: result.ErrStatus, Step: "GET /health", Count: 1, Sample: "503 Service Unavailable"},
	}
	if len(run.Errors) != 2 || run.Errors[0] != want[0] || run.Errors[1] != want[1] {
		t.Errorf("errors = %+v, want %+v", run.Errors, want)
	}
	importertest.WantMetric(t, run, result.LatencyMax, 250)
	importertest.WantMetric(t, run, result.RequestErrorPct, 40)
	if !importertest.HasNote(run, "2 sub-samples") || !importertest.HasNote(run, "1 transaction controller samples excluded") {
		t.Errorf("notes = %q", run.Notes)
	}
}

func TestXMLCutFile(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, XMLFormat{}, "testdata/cut.xml")
	if run.Requests.Total != 2 {
		t.Fatalf("requests = %+v, want the 2 complete samples", run.Requests)
	}
	if !importertest.HasNote(run, "the file was cut at line 7") {
		t.Errorf("notes = %q, want the cut named", run.Notes)
	}
}

func TestXMLLatin1(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, XMLFormat{}, "testdata/latin1.xml")
	if len(run.Steps) != 1 || run.Steps[0].Name != "GET /café" {
		t.Errorf("steps = %q, want [GET /café]", importertest.StepNames(run))
	}
}

func TestXMLBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"bad.xml", `testdata/bad.xml:4: <httpSample>: t="x" is not a whole number of milliseconds`},
		{"malformed.xml", `testdata/malformed.xml:5: malformed XML: element <httpSample> closed by </sample>`},
		{"statistics.json", "testdata/statistics.json:1: expected JMeter's <testResults> root element, got text \"{\\n  \\\"GET /a\\\""},
	} {
		_, err := importertest.ImportPath(XMLFormat{}, "testdata/"+tc.file)
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\nwant SyntaxError %q", tc.file, err, tc.want)
		}
	}
	_, err := XMLFormat{}.Import("other.xml", strings.NewReader("<?xml version=\"1.0\"?>\n<project/>"))
	if err == nil || err.Error() != "other.xml:2: expected JMeter's <testResults> root element, got <project>" {
		t.Errorf("other root: err = %v", err)
	}
	_, err = XMLFormat{}.Import("empty.xml", strings.NewReader("<testResults version=\"1.2\">\n</testResults>\n"))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) {
		t.Errorf("no samples: err = %v, want Unsupported", err)
	}
}

func TestXMLSniff(t *testing.T) {
	t.Parallel()
	if !(XMLFormat{}).Sniff("x", []byte(`<?xml version="1.0"?><testResults version="1.2"><httpSample`)) {
		t.Error("testResults root not recognised")
	}
	for _, in := range []string{`<?xml version="1.0"?><project/>`, `{"Total":{}}`, "timeStamp,elapsed\n"} {
		if (XMLFormat{}).Sniff("x", []byte(in)) {
			t.Errorf("Sniff(%q) = true", in)
		}
	}
}
