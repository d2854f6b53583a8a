package importertest

import (
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// Folder is a shared fixture folder and the format of its files.
type Folder struct {
	Dir    string
	Format importer.Format
}

// ImportFolders imports every file of each folder with its format, in a
// subtest named after the folder: each file must be sniffed as the format,
// and import with requests or be rejected with a typed error and a reason.
// It logs each outcome and a count per folder.
func ImportFolders(t *testing.T, folders ...Folder) {
	for _, fo := range folders {
		t.Run(fo.Dir, func(t *testing.T) {
			files := FixtureFiles(t, fo.Dir)
			var imported, rejected int
			for _, path := range files {
				switch importFixture(t, fo.Format, path) {
				case outcomeImported:
					imported++
				case outcomeRejected:
					rejected++
				}
			}
			t.Logf("%s: %d files, %d imported, %d rejected", fo.Dir, len(files), imported, rejected)
		})
	}
}

type outcome int

const (
	outcomeImported outcome = iota
	outcomeRejected         // with a typed error
	outcomeFailed           // with an untyped error
)

// importFixture imports one file and says how that went.
func importFixture(t *testing.T, f importer.Format, path string) outcome {
	t.Helper()
	name := filepath.Base(path)
	if !f.Sniff(name, ReadHead(t, path)) {
		t.Errorf("%s: not recognised as %s", name, f.Name())
	}
	run, err := ImportPath(f, path)
	if err != nil {
		if _, ok := Rejection(err); !ok {
			t.Errorf("%s: untyped error: %v", name, err)
			return outcomeFailed
		}
		t.Logf("%s: rejected: %v", name, err)
		return outcomeRejected
	}
	if run.Requests.Total <= 0 {
		t.Errorf("%s: imported without requests", name)
	}
	t.Logf("%s: imported %d requests (%d failed), %d steps, metrics %v, errors %+v, notes %q",
		name, run.Requests.Total, run.Requests.Failed, len(run.Steps), run.Metrics, run.Errors, run.Notes)
	return outcomeImported
}

// SniffOnlyOwn checks detection from content: across every shared fixture
// folder of every tool, each folder's format claims the files of its own
// folder and no others.
func SniffOnlyOwn(t *testing.T, folders ...Folder) {
	root := FixturesDir(t, ".")
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		dir, name := filepath.Base(filepath.Dir(path)), filepath.Base(path)
		head := ReadHead(t, path)
		for _, fo := range folders {
			if got, want := fo.Format.Sniff(name, head), dir == fo.Dir; got != want {
				t.Errorf("%s/%s: %s.Sniff = %v, want %v", dir, name, fo.Dir, got, want)
			}
		}
	}
}
