package importer_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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

// TestEveryFormatRefusesOtherFormats forces each file through every format
// but its own, as --format would: each must refuse it with a typed error
// and a reason, never import it as an empty or invented run.
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
