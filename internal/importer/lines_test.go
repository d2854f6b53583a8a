package importer_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

func TestLineReaderNumbersLinesAndSeesTheCut(t *testing.T) {
	t.Parallel()
	lr := importer.NewLineReader(strings.NewReader("a\r\n\nb,c\nlast"))
	type line struct {
		text     string
		complete bool
		n        int
	}
	var got []line
	for lr.Scan() {
		got = append(got, line{string(lr.Bytes()), lr.Complete(), lr.Line()})
	}
	want := []line{{"a", true, 1}, {"", true, 2}, {"b,c", true, 3}, {"last", false, 4}}
	if len(got) != len(want) {
		t.Fatalf("lines %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
	if lr.Err() != nil || lr.Scan() {
		t.Errorf("after the last line: err %v, or Scan true again", lr.Err())
	}
	if got := importer.CutNote(4); !strings.Contains(got, "line 4 is incomplete") {
		t.Errorf("cut note %q", got)
	}
}

func TestLineReaderReadsLongLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	lr := importer.NewLineReader(strings.NewReader(long + "\nend\n"))
	if !lr.Scan() || len(lr.Bytes()) != len(long) || !lr.Scan() || string(lr.Bytes()) != "end" || lr.Line() != 2 {
		t.Errorf("long line: %d bytes, then %q at line %d, err %v", len(lr.Bytes()), lr.Bytes(), lr.Line(), lr.Err())
	}
}

func TestLineReaderNamesTheLineAReadFailedAt(t *testing.T) {
	t.Parallel()
	lr := importer.NewLineReader(io.MultiReader(strings.NewReader("ok\n"), iotest.ErrReader(errors.New("disk gone"))))
	if !lr.Scan() {
		t.Fatal(lr.Err())
	}
	if lr.Scan() {
		t.Fatalf("scanned %q past a read error", lr.Bytes())
	}
	if err := lr.Err(); err == nil || err.Error() != "reading line 2: disk gone" {
		t.Errorf("err = %v", err)
	}
}

// Lines in the buffer, lines longer than it and one past the size where
// the buffer gives back what it outgrew read whole and in order, each
// line's bytes valid until the next Scan; a cut last row is not a Row.
func TestLineReaderReadsLinesOfEverySize(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a line of 65 MiB")
	}
	huge := strings.Repeat("h", 65<<20)
	want := []string{"short", strings.Repeat("x", 200<<10), "", huge, "after"}
	lr := importer.NewLineReader(strings.NewReader(strings.Join(want, "\n") + "\ncut"))
	for i, w := range want {
		if !lr.Row() || string(lr.Bytes()) != w || lr.Line() != i+1 || !lr.Complete() {
			t.Fatalf("line %d: %d bytes (line %d), want %d", i+1, len(lr.Bytes()), lr.Line(), len(w))
		}
	}
	if lr.Row() || lr.Cut() != len(want)+1 || lr.Err() != nil {
		t.Errorf("the cut last row: Row true or Cut %d, want %d (err %v)", lr.Cut(), len(want)+1, lr.Err())
	}
}
