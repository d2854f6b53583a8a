package vegeta

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// fixtureSeeds returns the shared vegeta fixtures, when present, capped in
// size so that mutation stays quick.
func fixtureSeeds(t testing.TB) [][]byte {
	dir, _ := os.Getwd()
	for dir != filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	var seeds [][]byte
	for _, folder := range []string{"vegeta-report-json", "vegeta-results-gob", "vegeta-report-text"} {
		files, _ := filepath.Glob(filepath.Join(dir, "..", "shared", "fixtures", folder, "*"))
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				seeds = append(seeds, data[:min(len(data), 16<<10)])
			}
		}
	}
	return seeds
}

// FuzzImport feeds both vegeta parsers the same bytes: no panic, and a run
// that encodes or a typed error.
func FuzzImport(f *testing.F) {
	for _, file := range []string{"report.json", "report-old.json", "report.txt", "results.jsonl", "cut.jsonl", "bad.jsonl"} {
		f.Add(readTestdata(f, file))
	}
	f.Add(gobStream(f, sampleResults()))
	for _, s := range fixtureSeeds(f) {
		f.Add(s)
	}
	formats := []importer.Format{Report{}, Results{}, Text{}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range formats {
			format.Sniff("fuzz", data)
			run, err := format.Import("fuzz", bytes.NewReader(data))
			checkOutcome(t, run, err)
		}
	})
}
