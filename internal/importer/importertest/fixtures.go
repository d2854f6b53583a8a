// Package importertest owns what the importer packages' tests share:
// finding the shared fixtures beside the module root, walking a fixture
// folder through its format, the contract every import honours on any
// input (the fuzz harness), and the assertions on imported runs.
//
// It is imported by tests only.
package importertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// headSize is how much of a file a format's Sniff sees.
const headSize = 64 << 10

// SharedFixtures returns ../shared/fixtures/<sub> beside the module root
// (the directory with go.mod, found by walking up from the working
// directory), or <sub> under $TAILGATE_FIXTURES when that is set, for a
// checkout that does not sit beside them; ok is false when it is absent.
func SharedFixtures(sub string) (dir string, ok bool) {
	if base := os.Getenv("TAILGATE_FIXTURES"); base != "" {
		dir = filepath.Join(base, sub)
	}
	for root, err := os.Getwd(); dir == "" && err == nil; root, err = filepath.Dir(root), nil {
		if _, err = os.Stat(filepath.Join(root, "go.mod")); err == nil {
			dir = filepath.Join(root, "..", "shared", "fixtures", sub)
		} else if filepath.Dir(root) == root {
			break
		}
	}
	_, err := os.Stat(dir)
	return dir, dir != "" && err == nil
}

// FixturesDir is SharedFixtures for a test that needs them: it skips the
// test when they are absent.
func FixturesDir(t testing.TB, sub string) string {
	t.Helper()
	dir, ok := SharedFixtures(sub)
	if !ok {
		t.Skipf("shared fixtures %q not present beside the module root", sub)
	}
	return dir
}

// SharedFixtureFiles lists the files of these shared fixture folders; none
// when the fixtures are absent, so that a fuzzer still runs on its own seeds.
func SharedFixtureFiles(folders ...string) []string {
	var patterns []string
	for _, folder := range folders {
		if dir, ok := SharedFixtures(folder); ok {
			patterns = append(patterns, filepath.Join(dir, "*"))
		}
	}
	return Files(patterns...)
}

// Files lists the files that match the patterns, each pattern's sorted.
func Files(patterns ...string) []string {
	var files []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		files = append(files, m...)
	}
	return files
}

// ReadHead returns a file's first bytes, as much as Sniff sees.
func ReadHead(t testing.TB, path string) []byte {
	t.Helper()
	b := readFile(t, path)
	return b[:min(len(b), headSize)]
}

func ImportPath(f importer.Format, path string) (*result.Run, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return f.Import(path, fh)
}

func Testdata(t testing.TB, file string) []byte {
	t.Helper()
	return readFile(t, filepath.Join("testdata", file))
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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
			files := Files(filepath.Join(FixturesDir(t, fo.Dir), "*"))
			count := map[string]int{}
			for _, path := range files {
				name := filepath.Base(path)
				if !fo.Format.Sniff(name, ReadHead(t, path)) {
					t.Errorf("%s: not recognised as %s", name, fo.Format.Name())
				}
				run, err := ImportPath(fo.Format, path)
				if _, typed := Rejection(err); err != nil && !typed {
					t.Errorf("%s: untyped error: %v", name, err)
				} else if err != nil {
					t.Logf("%s: rejected: %v", name, err)
					count["rejected"]++
				} else {
					if run.Requests.Total <= 0 {
						t.Errorf("%s: imported without requests", name)
					}
					t.Logf("%s: imported %d requests (%d failed), %d steps, metrics %v, errors %+v, notes %q",
						name, run.Requests.Total, run.Requests.Failed, len(run.Steps), run.Metrics, run.Errors, run.Notes)
					count["imported"]++
				}
			}
			t.Logf("%s: %d files, %d imported, %d rejected", fo.Dir, len(files), count["imported"], count["rejected"])
		})
	}
}

// SniffOnlyOwn checks detection from content: across every shared fixture
// folder of every tool, each folder's format claims the files of its own
// folder and no others.
func SniffOnlyOwn(t *testing.T, folders ...Folder) {
	for _, path := range Files(filepath.Join(FixturesDir(t, "."), "*", "*")) {
		dir, name := filepath.Base(filepath.Dir(path)), filepath.Base(path)
		head := ReadHead(t, path)
		for _, fo := range folders {
			if got, want := fo.Format.Sniff(name, head), dir == fo.Dir; got != want {
				t.Errorf("%s/%s: %s.Sniff = %v, want %v", dir, name, fo.Dir, got, want)
			}
		}
	}
}
