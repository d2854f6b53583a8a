package importer_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// TestByteOrderMarkIsIgnored: a file saved with a UTF-8 byte order mark
// (Windows editors, PowerShell's Out-File) imports as the file without it.
func TestByteOrderMarkIsIgnored(t *testing.T) {
	t.Parallel()
	var checked int
	for _, path := range sampleFiles(t) {
		plain, err := importer.Read(path, "")
		if err != nil || plain.Format == "locust-csv" {
			continue // bad-input samples; Locust's set reads sibling files
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		marked := filepath.Join(t.TempDir(), filepath.Base(path))
		if err := os.WriteFile(marked, append([]byte("\ufeff"), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := importer.Read(marked, "")
		if err != nil {
			t.Errorf("%s with a byte order mark: %v", path, err)
			continue
		}
		if got.Format != plain.Format || len(got.Runs) != len(plain.Runs) {
			t.Errorf("%s with a byte order mark: %s × %d runs, want %s × %d", path, got.Format, len(got.Runs), plain.Format, len(plain.Runs))
			continue
		}
		for i := range got.Runs {
			if !reflect.DeepEqual(got.Runs[i].Metrics, plain.Runs[i].Metrics) || got.Runs[i].Requests != plain.Runs[i].Requests {
				t.Errorf("%s run %d with a byte order mark: %v %+v, want %v %+v", path, i+1,
					got.Runs[i].Metrics, got.Runs[i].Requests, plain.Runs[i].Metrics, plain.Runs[i].Requests)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d files checked", checked)
	}
}

// TestUTF16FileImportsAsItsUTF8: a result saved by PowerShell's > (UTF-16
// little endian with a byte order mark), or in UTF-16 without one or big
// endian, imports as the file its tool wrote; it was "format not
// recognised".
func TestUTF16FileImportsAsItsUTF8(t *testing.T) {
	t.Parallel()
	encodings := map[string]func([]byte) []byte{
		"PowerShell's > (UTF-16 LE with BOM)": func(b []byte) []byte { return append([]byte{0xff, 0xfe}, utf16Bytes(b, binary.LittleEndian)...) },
		"UTF-16 LE without BOM":               func(b []byte) []byte { return utf16Bytes(b, binary.LittleEndian) },
		"UTF-16 BE with BOM":                  func(b []byte) []byte { return append([]byte{0xfe, 0xff}, utf16Bytes(b, binary.BigEndian)...) },
	}
	var checked int
	for _, path := range sampleFiles(t) {
		plain, err := importer.Read(path, "")
		if err != nil || plain.Format == "locust-csv" {
			continue // bad-input samples; Locust's set reads sibling files
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			continue // a binary format (vegeta's gob, Gatling's binary log)
		}
		for name, encode := range encodings {
			wide := filepath.Join(t.TempDir(), filepath.Base(path))
			if err := os.WriteFile(wide, encode(data), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := importer.Read(wide, "")
			if err != nil {
				t.Errorf("%s in %s: %v", path, name, err)
				continue
			}
			if got.Format != plain.Format || len(got.Runs) != len(plain.Runs) ||
				!reflect.DeepEqual(got.Runs[0].Metrics, plain.Runs[0].Metrics) || got.Runs[0].Requests != plain.Runs[0].Requests {
				t.Errorf("%s in %s: %s × %d runs %+v, want %s × %d %+v", path, name, got.Format, len(got.Runs), got.Runs[0].Requests,
					plain.Format, len(plain.Runs), plain.Runs[0].Requests)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d files checked", checked)
	}
}

func utf16Bytes(b []byte, order binary.ByteOrder) []byte {
	units := utf16.Encode([]rune(string(b)))
	out := make([]byte, 2*len(units))
	for i, u := range units {
		order.PutUint16(out[2*i:], u)
	}
	return out
}
