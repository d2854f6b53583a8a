// Package jmeter owns the Apache JMeter importers: JTL result files in CSV
// form ("jmeter-jtl-csv") and XML form ("jmeter-jtl-xml"), and the HTML
// dashboard's statistics.json ("jmeter-statistics-json").
//
// A transaction controller sample (response message "Number of samples in
// transaction : …") times samples that are in the file themselves, so it is
// no request unless the file holds nothing else. A sub-sample (redirect hop,
// embedded resource) is folded into its parent, whose elapsed time covers
// it: in XML it is nested in the parent; in CSV it is labelled
// "<parent label>-<n>", on the parent's thread, within the parent's time.
package jmeter

import "github.com/tailgate-ci/tailgate/internal/importer"

func init() {
	importer.Register(CSVFormat{})
	importer.Register(XMLFormat{})
	importer.Register(StatisticsFormat{})
}
