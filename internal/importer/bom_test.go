package importer_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// TestByteOrderMarkIsIgnored: a file saved with a UTF-8 byte order mark
// (Windows editors, PowerShell's Out-File) imports as the file without it.
func TestByteOrderMarkIsIgnored(t *testing.T) {
	t.Parallel()
	var checked int
	for _, path := range sampleFiles(t) {
		plain, err := importer.Read(path, "")
		if err != nil || plain.Format == "locust-csv" {
			continue // bad-input samples; Locust's set reads sibling files
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		marked := filepath.Join(t.TempDir(), filepath.Base(path))
		if err := os.WriteFile(marked, append([]byte("\ufeff"), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := importer.Read(marked, "")
		if err != nil {
			t.Errorf("%s with a byte order mark: %v", path, err)
			continue
		}
		if got.Format != plain.Format || len(got.Runs) != len(plain.Runs) {
			t.Errorf("%s with a byte order mark: %s × %d runs, want %s × %d", path, got.Format, len(got.Runs), plain.Format, len(plain.Runs))
			continue
		}
		for i := range got.Runs {
			if !reflect.DeepEqual(got.Runs[i].Metrics, plain.Runs[i].Metrics) || got.Runs[i].Requests != plain.Runs[i].Requests {
				t.Errorf("%s run %d with a byte order mark: %v %+v, want %v %+v", path, i+1,
					got.Runs[i].Metrics, got.Runs[i].Requests, plain.Runs[i].Metrics, plain.Runs[i].Requests)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d files checked", checked)
	}
}
