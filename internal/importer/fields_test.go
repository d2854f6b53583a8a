package importer

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// FuzzSplitCSVMatchesEncodingCSV: a line SplitCSV reads, it reads into the
// fields encoding/csv reads, and it refuses what encoding/csv refuses.
func FuzzSplitCSVMatchesEncodingCSV(f *testing.F) {
	for _, s := range []string{"a,b,c", "1,\"x, y\",3", "", ",,", "1,\"bare\"quote", "a\"b,c", "x,\"\"\"q\"\"\",y", "\"open,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if bytes.ContainsRune([]byte(line), '\n') || bytes.HasSuffix([]byte(line), []byte("\r")) || line == "" {
			return // one line, without its line break; encoding/csv skips an empty one
		}
		got, gotErr := SplitCSV(nil, []byte(line), ',')
		cr := csv.NewReader(bytes.NewReader([]byte(line)))
		cr.FieldsPerRecord = -1
		want, wantErr := cr.Read()
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: SplitCSV err %v, encoding/csv err %v", line, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %q, want %q", line, got, want)
		}
		for i := range want {
			if string(got[i]) != want[i] {
				t.Fatalf("%q: %q, want %q", line, got, want)
			}
		}
	})
}
