package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
)

// LineReader reads a file line by line, as bufio.Scanner does, but with no
// limit on a line's length, the lines' 1-based numbers, and whether each
// ended with a newline: a last line without one, that does not parse, is
// where the file was cut (see CutNote).
//
// A line is read in place in the reader's buffer, copied only when it is
// longer than the buffer: a per-request file is millions of short lines.
// Memory is the buffer plus the longest line, held once while it is put
// together (its parts are not kept beside it).
type LineReader struct {
	br       *bufio.Reader
	n        int
	line     []byte
	complete bool
	err      error
	cut      int
	long     []byte // a line longer than br's buffer, being put together
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Scan advances to the next line; it is false at the end of the file or
// on a read error (see Err).
func (l *LineReader) Scan() bool {
	b, err := l.readLine()
	if err != nil && err != io.EOF {
		l.line, l.complete, l.err = nil, false, fmt.Errorf("reading line %d: %w", l.n+1, err)
		return false
	}
	if len(b) == 0 {
		l.line, l.complete = nil, false
		return false
	}
	l.n++
	l.line, l.complete = bytes.TrimRight(b, "\r\n"), err == nil
	return true
}

// Row advances to the next complete line of a file of one record per line
// (a CSV, a TSV, NDJSON): a last line without a line break is where a
// writer stopped mid-record, and even when it parses its last field may be
// cut short ("0.12" of "0.1234"), so it is not given: Row is false, and
// Cut says where. Blank lines are given; the caller skips them.
func (l *LineReader) Row() bool {
	if !l.Scan() {
		return false
	}
	if !l.complete && len(bytes.TrimSpace(l.line)) > 0 {
		l.cut, l.line = l.n, nil
		return false
	}
	return true
}

// Cut is the number of the line Row left out as cut, or 0.
func (l *LineReader) Cut() int { return l.cut }

// readLine is bufio.Reader.ReadBytes without the copy of a line that fits
// the buffer. A longer one is put together in l.long, grown by a quarter
// at a time: while it grows, the old array and the new one are 2.25 times
// the line, where ReadBytes keeps every buffer's copy and then the whole.
func (l *LineReader) readLine() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	l.long = append(l.long[:0], b...)
	for err == bufio.ErrBufferFull {
		b, err = l.br.ReadSlice('\n')
		l.growLong(len(b))
		l.long = append(l.long, b...)
	}
	return l.long, err
}

// hugeLine is the length past which a line's buffer, when it grows, gives
// the array it outgrew back at once: the collector would otherwise keep
// each of them until the heap doubled, several times the line in all.
const hugeLine = 64 << 20

// growLong makes room for n more bytes in l.long.
func (l *LineReader) growLong(n int) {
	switch {
	case len(l.long)+n <= cap(l.long):
		return
	case cap(l.long) < hugeLine:
		l.long = slices.Grow(l.long, n)
		return
	}
	grown := make([]byte, len(l.long), max(cap(l.long)+cap(l.long)/4, len(l.long)+n))
	copy(grown, l.long)
	l.long = grown
	debug.FreeOSMemory() // the outgrown array is unreachable now
}

// Bytes is the current line without its line ending, valid until the
// next Scan or Row.
func (l *LineReader) Bytes() []byte { return l.line }

// Complete reports whether the current line ended with a newline.
func (l *LineReader) Complete() bool { return l.complete }

// Line is the current line's number.
func (l *LineReader) Line() int { return l.n }

// Err is the read error that ended Scan, if any.
func (l *LineReader) Err() error { return l.err }

// CutNote is the run's note for a file whose last line is incomplete.
func CutNote(line int) string {
	return fmt.Sprintf("file was cut: line %d is incomplete and was skipped; the lines before it were imported", line)
}
