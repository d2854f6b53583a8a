package k6

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// seedCap keeps fuzz seeds small enough to mutate quickly; big fixtures are
// cut at a line end.
const seedCap = 32 << 10

// fixtureSeeds returns the shared fixtures of these folders, when present.
func fixtureSeeds(t testing.TB, folders ...string) [][]byte {
	dir, _ := os.Getwd()
	for dir != filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	var seeds [][]byte
	for _, folder := range folders {
		files, _ := filepath.Glob(filepath.Join(dir, "..", "shared", "fixtures", folder, "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			if len(data) > seedCap {
				data = data[:bytes.LastIndexByte(data[:seedCap], '\n')+1]
			}
			seeds = append(seeds, data)
		}
	}
	return seeds
}

// FuzzImport feeds every k6 parser the same bytes: none may panic, and each
// must return a run that encodes or a typed error with a reason.
func FuzzImport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, file := range files {
		f.Add(mustRead(f, filepath.Base(file)))
	}
	for _, s := range fixtureSeeds(f, "k6-summary-export", "k6-handlesummary", "k6-ndjson", "k6-csv") {
		f.Add(s)
	}
	formats := []importer.Format{SummaryExport{}, HandleSummary{}, NDJSON{}, CSV{}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range formats {
			format.Sniff("fuzz", data)
			run, err := format.Import("fuzz", bytes.NewReader(data))
			checkOutcome(t, run, err)
		}
	})
}
