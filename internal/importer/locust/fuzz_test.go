package locust

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// readOr returns a file's bytes, or nil when it is absent; seeds are capped
// so that mutation stays quick.
func readOr(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return data[:min(len(data), 16<<10)]
}

// familySeeds lists (stats, history, failures) triples from testdata and,
// when present, the shared Locust fixtures.
func familySeeds() [][3][]byte {
	var out [][3][]byte
	add := func(statsPath string) {
		base, _ := splitSuffix(statsPath)
		out = append(out, [3][]byte{readOr(statsPath), readOr(base + "_stats_history.csv"), readOr(base + "_failures.csv")})
	}
	stats := importertest.Files(filepath.Join("testdata", "*_stats.csv"))
	if dir, ok := importertest.SharedFixtures("locust"); ok {
		stats = append(stats, importertest.Files(filepath.Join(dir, "*_stats.csv"))...)
	}
	for _, s := range stats {
		add(s)
	}
	out = append(out, [3][]byte{readOr("testdata/old_requests.csv"), nil, nil})
	return out
}

// FuzzImport parses a fuzzed family of stats, history and failures files,
// and each file alone: no panic, and a run that encodes or a typed error.
func FuzzImport(f *testing.F) {
	for _, s := range familySeeds() {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, stats, history, failures []byte) {
		fam := &family{stats: member{"f_stats.csv", stats}, history: member{"f_stats_history.csv", history},
			failures: member{"f_failures.csv", failures}}
		if len(history) == 0 {
			fam.history.data = nil
		}
		if len(failures) == 0 {
			fam.failures.data = nil
		}
		run, err := fam.run()
		checkOutcome(t, run, err)
		for _, data := range [][]byte{stats, history, failures} {
			CSV{}.Sniff("fuzz", data)
			run, err := CSV{}.Import("fuzz", bytes.NewReader(data))
			checkOutcome(t, run, err)
		}
	})
}

// checkOutcome is importertest.CheckOutcome, and names keep their bytes.
func checkOutcome(t *testing.T, run *result.Run, err error) {
	t.Helper()
	if js := importertest.CheckOutcome(t, run, err); bytes.Contains(js, []byte("\ufffd")) {
		t.Fatalf("a name lost bytes to U+FFFD: %s", js)
	}
}
