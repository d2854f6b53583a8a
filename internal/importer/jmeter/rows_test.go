package jmeter

import (
	"bufio"
	"encoding/csv"
	"io"
	"slices"
	"strings"
	"testing"
)

// readAllRows reads every record with rowReader; ok is false on an error.
func readAllRows(in string) (rows [][]string, lines []int, ok bool) {
	rr := newRowReader(bufio.NewReaderSize(strings.NewReader(in), 16), ',')
	for {
		row, line, _, err := rr.next()
		if err == io.EOF {
			return rows, lines, true
		}
		if err != nil {
			return rows, lines, false
		}
		rows, lines = append(rows, slices.Clone(row)), append(lines, line)
	}
}

// csvRows reads every record with encoding/csv, as the importer did.
func csvRows(in string) (rows [][]string, lines []int, ok bool) {
	cr := csv.NewReader(strings.NewReader(in))
	cr.FieldsPerRecord = -1
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return rows, lines, true
		}
		if err != nil {
			return rows, lines, false
		}
		line, _ := cr.FieldPos(0)
		rows, lines = append(rows, row), append(lines, line)
	}
}

// FuzzRowReaderMatchesEncodingCSV: the fast reader reads every file that
// encoding/csv reads into the same records on the same lines, and refuses
// what it refuses. (A tiny buffer makes long lines take the slow path.)
func FuzzRowReaderMatchesEncodingCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n1,2,3\n",
		"a,b\r\n\r\n1,\"x, y\"\r\n2,\"multi\nline\"\n3,4",
		"1,\"bare\"quote\n", "1,2\n\n\n3,4\n", "x,\"\"\"q\"\"\",y\n", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n",
		"a\"b,c\n", "\"open,\n1,2\n",
		"\"\"\r\r", "\"\"\r\r\n", "1,\"x\"\r\r\n2,3\n", "\"\"\r", "a,b\r\r\n", "\"a\r\nb\"\r\n", "\r\n\r\n1\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, wantLines, wantOK := csvRows(in)
		got, gotLines, gotOK := readAllRows(in)
		if wantOK != gotOK {
			t.Fatalf("encoding/csv ok=%v, rowReader ok=%v on %q", wantOK, gotOK, in)
		}
		if !wantOK {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d, on %q:\n got %q\nwant %q", len(got), len(want), in, got, want)
		}
		for i := range want {
			if !slices.Equal(got[i], want[i]) || gotLines[i] != wantLines[i] {
				t.Fatalf("record %d: %q at line %d, want %q at line %d, on %q", i, got[i], gotLines[i], want[i], wantLines[i], in)
			}
		}
	})
}
