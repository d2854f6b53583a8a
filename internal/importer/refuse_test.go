package importer_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// sampleFiles are files of known format: every package's testdata, and the
// shared fixtures when present.
func sampleFiles(t *testing.T) []string {
	files := importertest.Files("*/testdata/*")
	if dir, ok := importertest.SharedFixtures("."); ok {
		files = append(files, importertest.Files(filepath.Join(dir, "*", "*"))...)
	}
	return files
}

// goWords are Go's names of types and decoder messages, which a refusal
// must not show ("cannot unmarshal bool into Go struct field
// .metrics.thresholds of type struct { OK bool … }").
var goWords = regexp.MustCompile(`Go (struct|value)|unmarshal|struct \{|\b(u?int(8|16|32|64)?|float(32|64)|interface \{\}|map\[\w+\])\b`)

// TestEveryFormatRefusesOtherFormats forces each file through every format
// but its own, as --format would: each must refuse it with a typed error
// and a reason, never import it as an empty or invented run, and say
// what it found where in words of the file, never in Go's.
func TestEveryFormatRefusesOtherFormats(t *testing.T) {
	t.Parallel()
	var forced int
	for _, path := range sampleFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			continue // a directory, or an empty file no format claims
		}
		head := data[:min(len(data), 64<<10)]
		own := sniffers(path, head)
		if len(own) != 1 {
			continue // a bad-input sample no format claims
		}
		for _, name := range importer.Names() {
			if name == own[0] {
				continue
			}
			f, _ := importer.Lookup(name)
			run, err := f.Import(path, bytes.NewReader(data))
			forced++
			if err == nil {
				t.Errorf("%s (%s) forced as %s: imported %d requests, want a refusal", path, own[0], name, run.Requests.Total)
				continue
			}
			if _, ok := importertest.Rejection(err); !ok {
				t.Errorf("%s (%s) forced as %s: untyped error %T: %v", path, own[0], name, err, err)
			}
			if goWords.MatchString(err.Error()) {
				t.Errorf("%s (%s) forced as %s: %v; want what was found where, in words of the file, not Go's (%q)", path, own[0], name, err, goWords.FindString(err.Error()))
			}
		}
	}
	t.Logf("%d forced imports refused", forced)
}

// An empty file (or one of white space) is refused as empty, with or
// without --format, not as a file of no known format.
func TestEmptyFileIsRefusedAsEmpty(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"", "\n\r\n", "\ufeff"} {
		path := filepath.Join(t.TempDir(), "result.json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"", "wrk-text", "k6-summary-export"} {
			_, err := importer.Read(path, format)
			var uns *importer.Unsupported
			if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "empty") {
				t.Errorf("%q as %q: err = %v; want it refused as empty", content, format, err)
			}
		}
	}
}

// A forced format's refusal says what was found where: k6's legacy export
// (thresholds as booleans) read as handleSummary JSON said "cannot
// unmarshal bool into Go struct field .metrics.thresholds of type struct
// { OK bool "json:\"ok\"" }".
func TestForcedFormatSaysWhatWasFoundWhere(t *testing.T) {
	t.Parallel()
	path := filepath.Join(importertest.FixturesDir(t, "k6-summary-export"), "TimurNurlygayanov__load_tests_k6__trading-scenario-20251120-100356__summary.json")
	_, err := importer.Read(path, "k6-handlesummary")
	if want := ":50: metrics.thresholds: true or false where an object belongs; expected a k6 handleSummary"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v; want %q", err, want)
	}
}
