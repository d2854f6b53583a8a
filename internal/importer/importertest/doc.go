// Package importertest owns what the importer packages' tests share:
// finding the shared fixtures beside the module root, walking a fixture
// folder through its format, the contract every import honours on any
// input (the fuzz harness), and the assertions on imported runs.
//
// It is imported by tests only.
package importertest
