// Package jmeter owns the Apache JMeter importers: JTL result files in CSV
// form ("jmeter-jtl-csv") and XML form ("jmeter-jtl-xml"), and the HTML
// dashboard's statistics.json ("jmeter-statistics-json").
//
// The JTL forms hold one row per sample and yield full latency histograms.
// What counts as a request:
//
//   - A transaction controller sample (response message "Number of samples
//     in transaction : …") times a group of samples that are themselves in
//     the file, so it is excluded; only when a file holds nothing else are
//     the transaction samples imported as the requests. (A transaction
//     sample is known by that message only: without the responseMessage
//     column it counts as a request.)
//   - A sub-sample (a redirect hop or embedded resource, labelled
//     "<parent label>-<n>", written with or inside its parent) is folded into
//     its parent: the parent is the one request the plan asked for, and its
//     elapsed time already covers the sub-samples.
//
// In XML the nesting says which samples are sub-samples: everything nested
// in a request. In CSV, where the rows are flat, a row is a sub-sample when
// its label is the previous request's label plus "-<n>", on the same thread,
// starting within that request's time. Both exclusions are counted in the
// run's notes.
package jmeter

import "github.com/tailgate-ci/tailgate/internal/importer"

func init() {
	importer.Register(CSVFormat{})
	importer.Register(XMLFormat{})
	importer.Register(StatisticsFormat{})
}
