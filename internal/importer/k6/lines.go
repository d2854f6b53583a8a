package k6

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// lineReader yields a file's lines with their 1-based numbers and whether
// each ended with a newline: a last line without one, that does not parse,
// is where the file was cut.
type lineReader struct {
	br *bufio.Reader
	n  int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its line ending; io.EOF at the end.
func (l *lineReader) next() (line []byte, complete bool, err error) {
	b, err := l.br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, false, fmt.Errorf("reading line %d: %w", l.n+1, err)
	}
	if len(b) == 0 {
		return nil, false, io.EOF
	}
	l.n++
	complete = err == nil
	return bytes.TrimRight(b, "\r\n"), complete, nil
}

// cutNote is the caveat for a file whose last line is incomplete.
func cutNote(line int) string {
	return fmt.Sprintf("file was cut: line %d is incomplete and was skipped; the lines before it were imported", line)
}
