package jmeter

import (
	"fmt"
	"strings"
)

// columns maps the JTL fields tailgate reads to their index in a row; -1
// when the file lacks the field.
type columns struct {
	n                                                int // fields per row
	timeStamp, elapsed, label, code, message, thread int
	success, failure, sampleCount                    int
	headerless                                       bool
}

// defaultLayouts are JMeter's default CSV columns by release, keyed by
// their count, for files written without a header row
// (jmeter.save.saveservice.print_field_names=false).
var defaultLayouts = map[int][]string{
	// JMeter 2.x before thread counts were saved, with the failure message
	11: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "Latency"},
	// JMeter 2.x
	12: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "bytes", "grpThreads", "allThreads", "Latency"},
	// JMeter 2.x saving the failure message (assertion_results_failure_message=true)
	13: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "grpThreads", "allThreads", "Latency"},
	// JMeter 3.0
	15: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "grpThreads", "allThreads", "Latency", "IdleTime", "Connect"},
	// JMeter 3.1 – 4.x
	16: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "Latency", "IdleTime", "Connect"},
	// JMeter 5.x
	17: {"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Latency", "IdleTime", "Connect"},
}

// isHeader reports whether a first row is JMeter's header row.
func isHeader(row []string) bool {
	// Called on every row: compare without lowering a copy of each field.
	var ts, el bool
	for _, f := range row {
		f = strings.TrimSpace(f)
		ts = ts || strings.EqualFold(f, "timestamp")
		el = el || strings.EqualFold(f, "elapsed")
	}
	return ts && el
}

// columnsFromHeader reads a header row; timeStamp and elapsed are required.
func columnsFromHeader(row []string) (columns, error) {
	c := newColumns(row)
	if c.timeStamp < 0 || c.elapsed < 0 {
		return c, fmt.Errorf("header row lacks the timeStamp or elapsed column; tailgate needs both")
	}
	return c, nil
}

// columnsFromDefaults picks JMeter's default layout with as many fields as
// the first row of a file without a header.
func columnsFromDefaults(first []string) (columns, error) {
	names, ok := defaultLayouts[len(first)]
	if !ok {
		return columns{}, fmt.Errorf("no header row, and %d fields match none of JMeter's default layouts (11, 12, 13, 15, 16 or 17 fields); "+
			"add the header row (jmeter.save.saveservice.print_field_names=true)", len(first))
	}
	c := newColumns(names)
	c.headerless = true
	if v := strings.TrimSpace(first[c.success]); v != "true" && v != "false" {
		return c, fmt.Errorf("no header row, and field %d is %q where JMeter's default %d-field layout has success (true/false); "+
			"add the header row (jmeter.save.saveservice.print_field_names=true)", c.success+1, v, len(first))
	}
	return c, nil
}

func newColumns(names []string) columns {
	c := columns{n: len(names), timeStamp: -1, elapsed: -1, label: -1, code: -1, message: -1,
		thread: -1, success: -1, failure: -1, sampleCount: -1}
	index := map[string]*int{"timestamp": &c.timeStamp, "elapsed": &c.elapsed, "label": &c.label,
		"responsecode": &c.code, "responsemessage": &c.message, "threadname": &c.thread,
		"success": &c.success, "failuremessage": &c.failure, "samplecount": &c.sampleCount}
	for i, name := range names {
		if p := index[strings.ToLower(strings.TrimSpace(name))]; p != nil && *p < 0 { // a sample variable may reuse a name; the first wins
			*p = i
		}
	}
	return c
}

// field returns row[i], or "" for a column the file lacks.
func field(row []string, i int) string {
	if i < 0 {
		return ""
	}
	return row[i]
}
