package importer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
	_ "github.com/tailgate-ci/tailgate/internal/importer/all"
	"github.com/tailgate-ci/tailgate/internal/printable"
)

// A load tool's label can be anything (a 70 KB URL): imported names are
// cut to printable.MaxName characters, as a config's are bounded, and
// marked as cut.
func TestImportedNamesAreClipped(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("jmeter", "testdata", "basic.csv"))
	if err != nil {
		t.Fatal(err)
	}
	long := "GET /" + strings.Repeat("é", 70_000)
	path := filepath.Join(t.TempDir(), "long.csv")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "GET /a", long)), 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := importer.Read(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var clipped int
	for _, run := range im.Runs {
		for _, st := range run.Steps {
			if n := utf8.RuneCountInString(st.Name); n > printable.MaxName {
				t.Errorf("step name of %d characters, want at most %d", n, printable.MaxName)
			}
			if strings.HasPrefix(st.Name, "GET /éé") {
				clipped++
				if !strings.HasSuffix(st.Name, "…") {
					t.Errorf("a clipped name is not marked: %q", st.Name)
				}
			}
		}
	}
	if clipped == 0 {
		t.Fatal("no step carries the long label: the test does not show the clipping")
	}
}
