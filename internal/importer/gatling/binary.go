package gatling

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Gatling 3.13 and later write simulation.log in a binary form (its
// LogFileDataWriter): big-endian integers, one record after another, each
// opening with a header byte. The first record is the run's: Gatling's
// version, the simulation, the run's start in epoch milliseconds, its
// description, the scenario names and the assertions. Every other record's
// times are milliseconds since that start:
//
//	USER     scenario index (int), start or end (bool), time (int)
//	REQUEST  groups, name, start (int), end (int), OK (bool), message
//	GROUP    groups, start (int), end (int), cumulated time (int), OK (bool)
//	ERROR    message, time (int)
//
// where groups are a count (int) of names. A string is its length in bytes
// (int; 0 is "", with nothing after it), the bytes of the JVM's own
// encoding of it, and that encoding (a byte: 0 Latin-1, 1 UTF-16 in the
// machine's byte order, little-endian on every platform Gatling runs on).
// Names and messages are cached: an index (int) that is new is followed by
// the string, a negative one names a string given before.
const (
	recordRun     = 0
	recordRequest = 1
	recordUser    = 2
	recordGroup   = 3
	recordError   = 4
)

// maxBinaryString bounds a name or message, far below what a file may claim.
const maxBinaryString = 1 << 20

// errBinaryCut is a file that ends inside a record.
var errBinaryCut = errors.New("the file ends inside a record")

// binaryLog reads the binary log. Its first error sticks: every read after
// it returns a zero value. Every length it reads is checked against what
// it bounds before anything is sized by it, and strings are read into
// memory that grows with the bytes actually read.
type binaryLog struct {
	r     *bufio.Reader
	cache map[int32]string
	buf   bytes.Buffer
	err   error
}

func (b *binaryLog) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *binaryLog) read(n int) []byte {
	var v [8]byte
	if b.err == nil {
		if _, err := io.ReadFull(b.r, v[:n]); err != nil {
			b.fail(errBinaryCut)
		}
	}
	return v[:n]
}

func (b *binaryLog) byte() byte {
	if b.err != nil {
		return 0
	}
	c, err := b.r.ReadByte()
	if err == io.EOF {
		err = errBinaryCut
	}
	b.fail(err)
	return c
}

func (b *binaryLog) int() int32  { return int32(binary.BigEndian.Uint32(b.read(4))) }
func (b *binaryLog) long() int64 { return int64(binary.BigEndian.Uint64(b.read(8))) }
func (b *binaryLog) bool() bool  { return b.byte() != 0 }

func (b *binaryLog) string() string {
	n := b.int()
	if b.err != nil || n == 0 {
		return ""
	}
	if n < 0 || n > maxBinaryString {
		b.fail(fmt.Errorf("a string of %d bytes; expected 0 to %d", n, maxBinaryString))
		return ""
	}
	b.buf.Reset()
	if got, _ := io.CopyN(&b.buf, b.r, int64(n)); got < int64(n) {
		b.fail(errBinaryCut)
	}
	coder := b.byte()
	if b.err != nil {
		return ""
	}
	raw := b.buf.Bytes()
	switch coder {
	case 0: // Latin-1: each byte is its code point
		s, _ := charmap.ISO8859_1.NewDecoder().Bytes(raw)
		return sanitize(string(s))
	case 1:
		if len(raw)%2 != 0 {
			b.fail(fmt.Errorf("a UTF-16 string of %d bytes, an odd number", len(raw)))
			return ""
		}
		units := make([]uint16, len(raw)/2)
		for i := range units {
			units[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		return sanitize(string(utf16.Decode(units)))
	}
	b.fail(fmt.Errorf("string encoding %d; expected 0 (Latin-1) or 1 (UTF-16)", coder))
	return ""
}

// sanitize is what Gatling's reader does to names: no line breaks or tabs.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

func (b *binaryLog) cached() string {
	i := b.int()
	if b.err != nil {
		return ""
	}
	if i < 0 {
		s, ok := b.cache[-i]
		if !ok {
			b.fail(fmt.Errorf("a reference to string %d, which was not given before", -i))
		}
		return s
	}
	s := b.string()
	if b.err == nil {
		b.cache[i] = s
	}
	return s
}

func (b *binaryLog) groups() []string {
	n := b.int()
	if b.err == nil && (n < 0 || n > 1000) {
		b.fail(fmt.Errorf("%d nested groups; expected 0 to 1000", n))
	}
	var out []string
	for i := int32(0); i < n && b.err == nil; i++ {
		out = append(out, b.cached())
	}
	return out
}

func (b *binaryLog) runRecord() (start int64, version string, err error) {
	version = b.string()
	b.string() // simulation class
	if start = b.long(); b.err == nil {
		b.fail(importer.CheckEpochMillis(start))
	}
	b.string() // run description
	// Scenario names, then assertions: a count of byte arrays.
	for i, n := int32(0), b.int(); i < n && b.err == nil; i++ {
		b.string()
	}
	for i, n := int32(0), b.int(); i < n && b.err == nil; i++ {
		if size := b.int(); b.err == nil && size < 0 {
			b.fail(fmt.Errorf("a length of %d", size))
		} else if got, _ := io.CopyN(io.Discard, b.r, int64(size)); b.err == nil && got < int64(size) {
			b.fail(errBinaryCut)
		}
	}
	return start, version, b.err
}

// versionRe is a Gatling version as the run record holds it: "3.13.5".
var versionRe = regexp.MustCompile(`^\d+\.\d+(\.\d+)?([.-][0-9A-Za-z.-]+)?$`)

// opensWithRunRecord reports whether head is the start of a binary log:
// the run record's header byte, a version such as 3.13.5, a simulation
// class, and a start in epoch milliseconds that falls in the years
// 2000–9999. Random or other binary bytes fail one of these.
func opensWithRunRecord(head []byte) bool {
	b := &binaryLog{r: bufio.NewReader(bytes.NewReader(head)), cache: map[int32]string{}}
	if b.byte() != recordRun || !versionRe.MatchString(b.string()) || b.string() == "" {
		return false
	}
	start := b.long()
	return b.err == nil && start >= 946684800000 && importer.CheckEpochMillis(start) == nil
}

func importBinaryLog(name string, r *bufio.Reader) (*result.Run, error) {
	b := &binaryLog{r: r, cache: map[int32]string{}}
	if b.byte() != recordRun || b.err != nil {
		return nil, &importer.SyntaxError{File: name, Msg: "a binary file that does not open with Gatling's run record; expected a simulation.log of Gatling 3.13 or later"}
	}
	start, version, err := b.runRecord()
	if err != nil {
		return nil, &importer.SyntaxError{File: name, Msg: fmt.Sprintf("the run record: %v; expected a simulation.log of Gatling 3.13 or later", err)}
	}
	p := &logParse{file: name, runs: newRunBuilder(), version: version, seenRecord: true}
	for n := 2; ; n++ {
		h, err := r.ReadByte()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = p.binaryRecord(b, h, start)
		}
		if errors.Is(err, errBinaryCut) {
			p.notes = append(p.notes, fmt.Sprintf("the file was cut: record %d is incomplete and was skipped", n))
			break
		}
		if err != nil {
			return nil, &importer.SyntaxError{File: name, Msg: fmt.Sprintf("record %d: %v", n, err)}
		}
	}
	if version != "" {
		p.notes = append(p.notes, "binary simulation.log of Gatling "+importer.OneLine(version))
	}
	return p.finish()
}

func (p *logParse) binaryRecord(b *binaryLog, h byte, runStart int64) error {
	switch h {
	case recordUser:
		_, _, _ = b.int(), b.bool(), b.int()
	case recordGroup:
		_, _, _, _ = b.groups(), b.int(), b.int(), b.int()
		if b.err == nil {
			b.bool()
			p.groups++
		}
	case recordError:
		msg, _ := b.cached(), b.int()
		p.errors, p.errorMsg = p.errors+1, cmp.Or(p.errorMsg, importer.OneLine(msg))
	case recordRequest:
		groups, name := b.groups(), b.cached()
		s, e, ok, msg := b.int(), b.int(), b.bool(), b.cached()
		if b.err != nil {
			return b.err
		}
		start, end := runStart+int64(s), runStart+int64(e)
		if err := importer.CheckEpochMillis(start); err != nil {
			return fmt.Errorf("request start: %w", err)
		}
		if end < start {
			return fmt.Errorf("request ends (%d ms) before it starts (%d ms)", e, s)
		}
		p.runs.add(request{step: strings.Join(append(groups, name), " / "), start: start, end: end, ok: ok, message: strings.TrimSpace(msg)})
	default:
		return fmt.Errorf("unknown record header %d; expected 1 (request), 2 (user), 3 (group) or 4 (error)", h)
	}
	return b.err
}
