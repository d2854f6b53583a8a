package jmeter

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// ownFixtures are the shared fixture folders of this package's formats.
var ownFixtures = []importertest.Folder{
	{Dir: "jmeter-jtl-csv", Format: CSVFormat{}},
	{Dir: "jmeter-jtl-xml", Format: XMLFormat{}},
	{Dir: "jmeter-statistics-json", Format: StatisticsFormat{}},
}

// TestFixtures imports every shared fixture of the three formats: each one
// imports with requests, or is rejected with a typed error and a reason.
func TestFixtures(t *testing.T) {
	t.Parallel()
	importertest.ImportFolders(t, ownFixtures...)
}

// TestSniffOnlyOwnFixtures checks detection from content: across every
// fixture folder of every tool, each format claims only its own files.
func TestSniffOnlyOwnFixtures(t *testing.T) {
	t.Parallel()
	importertest.SniffOnlyOwn(t, ownFixtures...)
}
