package importertest

import (
	"os"
	"path/filepath"
	"sort"
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
		_, err := os.Stat(dir)
		return dir, err == nil
	}
	root, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(root, "go.mod")); statErr == nil {
			dir = filepath.Join(root, "..", "shared", "fixtures", sub)
			_, err = os.Stat(dir)
			return dir, err == nil
		}
		if filepath.Dir(root) == root {
			break
		}
		root = filepath.Dir(root)
	}
	return "", false
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

// FixtureFiles lists the files of one shared fixture folder, sorted, or
// skips the test when the fixtures are absent.
func FixtureFiles(t testing.TB, sub string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(FixturesDir(t, sub), "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// SharedFixtureFiles lists the files of these shared fixture folders; none
// when the fixtures are absent, so that a fuzzer still runs on its own seeds.
func SharedFixtureFiles(folders ...string) []string {
	var files []string
	for _, folder := range folders {
		if dir, ok := SharedFixtures(folder); ok {
			m, _ := filepath.Glob(filepath.Join(dir, "*"))
			files = append(files, m...)
		}
	}
	return files
}

// Files lists the files matching any of these patterns.
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
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(len(b), headSize)]
}

// ImportPath reads the file at path with format f.
func ImportPath(f importer.Format, path string) (*result.Run, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return f.Import(path, fh)
}

// Testdata returns the bytes of a file in the package's testdata folder.
func Testdata(t testing.TB, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
