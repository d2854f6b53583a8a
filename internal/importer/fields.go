package importer

import (
	"bytes"
	"encoding/csv"
)

// SplitCSV splits one line of a CSV file (no line break) into its fields,
// slices of line or, for a line with a quote, of a copy. Most rows of a
// per-request file hold no quote, and splitting those at the delimiter is
// several times cheaper than encoding/csv, which reads a quoted row, so
// that both read every line alike. dst is reused.
func SplitCSV(dst [][]byte, line []byte, comma byte) ([][]byte, error) {
	dst = dst[:0]
	if bytes.IndexByte(line, '"') < 0 {
		for {
			i := bytes.IndexByte(line, comma)
			if i < 0 {
				return append(dst, line), nil
			}
			dst, line = append(dst, line[:i]), line[i+1:]
		}
	}
	cr := csv.NewReader(bytes.NewReader(line))
	cr.Comma = rune(comma)
	cr.FieldsPerRecord = -1
	f, err := cr.Read()
	if err != nil {
		return dst, err
	}
	for _, s := range f {
		dst = append(dst, []byte(s))
	}
	return dst, nil
}

// maxInterned bounds the strings an Interner keeps: a file of a distinct
// URL per request must not keep them all twice.
const maxInterned = 1 << 14

// Interner hands out one string per distinct content, so that the names
// and tags a per-request file repeats on every line cost no allocation.
// The zero value is ready to use.
type Interner struct{ m map[string]string }

// maxInternedLen is the longest string an Interner keeps: a long one is
// rare, and keeping it would hold it for the whole import.
const maxInternedLen = 1 << 10

// String is b as a string, the same one for the same bytes (up to
// maxInterned distinct ones of up to maxInternedLen bytes; else a new
// string each time).
func (in *Interner) String(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < maxInterned && len(s) <= maxInternedLen {
		in.m[s] = s
	}
	return s
}
