package jmeter

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// rowReader reads a JTL's records. Most rows hold no quote, and those are
// split at the delimiter directly, which is several times cheaper than
// encoding/csv; a row with a quote (a message holding the delimiter or a
// line break) is read whole and parsed by encoding/csv, so that both read
// every file alike.
type rowReader struct {
	br     *bufio.Reader
	comma  byte
	line   int // lines read so far
	fields []string
	long   []byte // a line longer than br's buffer, being put together
}

func newRowReader(br *bufio.Reader, comma rune) *rowReader {
	return &rowReader{br: br, comma: byte(comma)}
}

// readLine returns the next line without its line break, and whether it
// had one; io.EOF when nothing is left.
func (r *rowReader) readLine() (string, bool, error) {
	r.long = r.long[:0]
	for {
		b, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			r.long = append(r.long, b...)
			continue
		}
		if len(r.long) > 0 {
			b = append(r.long, b...)
		}
		if err != nil && err != io.EOF {
			return "", false, err
		}
		if err == io.EOF && len(b) == 0 {
			return "", false, io.EOF
		}
		complete := err == nil
		n := len(b)
		if complete {
			n--
		}
		// A CR before the line break stays: encoding/csv, which parses
		// quoted records, must see it to refuse a stray one (`""\r\r`);
		// the unquoted path drops it (see next).
		return string(b[:n]), complete, nil
	}
}

// next returns the next record, the line it starts on and whether it ends
// the file without a line break (where a writer stopped mid-row). Empty
// lines are skipped, as encoding/csv skips them. A record that does not
// parse is a *csv.ParseError; the end of the file is io.EOF.
func (r *rowReader) next() (row []string, start int, unterminated bool, err error) {
	var text string
	complete := true
	for text == "" || text == "\r" {
		if text, complete, err = r.readLine(); err != nil {
			return nil, 0, false, err
		}
		r.line++
		if (text == "" || text == "\r") && !complete {
			return nil, 0, false, io.EOF
		}
	}
	start = r.line
	if strings.IndexByte(text, '"') < 0 {
		text = strings.TrimSuffix(text, "\r") // a CRLF, or a CR that ends the file
		r.fields = r.fields[:0]
		for {
			i := strings.IndexByte(text, r.comma)
			if i < 0 {
				break
			}
			r.fields = append(r.fields, text[:i])
			text = text[i+1:]
		}
		r.fields = append(r.fields, text)
		return r.fields, start, !complete, nil
	}
	// A quoted field may run over lines: read until the quotes pair up.
	record := text
	for complete && strings.Count(record, `"`)%2 == 1 {
		more, done, err := r.readLine()
		if err == io.EOF {
			break // the quote stays open: encoding/csv says where
		} else if err != nil {
			return nil, 0, false, err
		}
		r.line++
		record, complete = record+"\n"+more, done
	}
	cr := csv.NewReader(strings.NewReader(record))
	cr.Comma = rune(r.comma)
	cr.FieldsPerRecord = -1
	row, err = cr.Read()
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil, start, !complete, &csv.ParseError{StartLine: start, Line: start + pe.Line - 1, Column: pe.Column, Err: pe.Err}
	}
	if err == nil {
		if _, err2 := cr.Read(); err2 != io.EOF {
			err = &csv.ParseError{StartLine: start, Line: start, Err: errors.New("a quoted field does not end where its record does")}
		}
	}
	return row, start, !complete, err
}
