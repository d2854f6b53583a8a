package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadJSON holds the report-artifact reader to its contract on any
// bytes, as an artifact of a fork PR may hold: no panic; an accepted
// report renders to Markdown in which no line is a workflow command, and
// writes back to JSON that is accepted again.
func FuzzReadJSON(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"schema": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("error without a message")
			}
			return
		}
		md := Markdown(in)
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") {
				t.Fatalf("a Markdown line is a workflow command: %q", line)
			}
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, in); err != nil {
			t.Fatalf("accepted report does not write back: %v", err)
		}
		if _, err := ReadJSON(&buf); err != nil {
			t.Fatalf("written back, then refused: %v", err)
		}
	})
}
