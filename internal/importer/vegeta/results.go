// Package vegeta owns the vegeta importers: its reports (text and JSON,
// vegeta's own figures) and its results (gob, JSON lines, CSV).
package vegeta

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Results reads `vegeta attack`'s gob stream and `vegeta encode`'s JSON
// lines and CSV rows.
type Results struct{}

func (Results) Name() string { return "vegeta-results" }

// hit mirrors the fields of vegeta's Result that a run is built from. gob
// matches struct fields by name, so this local type decodes vegeta's
// stream without importing vegeta; JSON tags follow `vegeta encode`. The
// response body and headers are left out on purpose: gob skips the fields
// a destination lacks, and a map it decodes is made at the size the file
// claims before a byte of it is read (a few crafted bytes asking for
// gigabytes), while a skipped one costs only the bytes it holds.
type hit struct {
	Attack    string        `json:"attack"`
	Seq       uint64        `json:"seq"`
	Code      uint16        `json:"code"`
	Timestamp time.Time     `json:"timestamp"`
	Latency   time.Duration `json:"latency"`
	BytesOut  uint64        `json:"bytes_out"`
	BytesIn   uint64        `json:"bytes_in"`
	Error     string        `json:"error"`
	Method    string        `json:"method"`
	URL       string        `json:"url"`
}

// isGob: a gob stream opens with the type definition of vegeta's Result.
func isGob(head []byte) bool {
	head = head[:min(len(head), 512)]
	return bytes.Contains(head, []byte("\x06Result")) && bytes.Contains(head, []byte("Latency")) &&
		bytes.Contains(head, []byte("Timestamp"))
}

func isJSONLines(head []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var probe map[string]json.RawMessage
	if json.Unmarshal(first, &probe) != nil {
		return false
	}
	for _, k := range []string{"code", "timestamp", "latency", "seq"} {
		if _, ok := probe[k]; !ok {
			return false
		}
	}
	return true
}

// isCSV: `vegeta encode -to csv` rows have no header and start with a
// Unix time in nanoseconds, a status and a latency in nanoseconds.
func isCSV(head []byte) bool {
	first, _, _ := bytes.Cut(head, []byte{'\n'})
	f, err := csv.NewReader(bytes.NewReader(first)).Read()
	return err == nil && len(f) >= csvFields && len(f[0]) >= 16 && importer.Digits(f[0]) && importer.Digits(f[1]) && len(f[1]) <= 3 && importer.Digits(f[2])
}

func (Results) Sniff(_ string, head []byte) bool {
	return isGob(head) || isJSONLines(head) || isCSV(head)
}

func (Results) Import(name string, r io.Reader) (*result.Run, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(512)
	agg := &tally{requests: rawrun.New(rawrun.Options{What: "targets", Pool: otherStep})}
	var err error
	switch t := bytes.TrimLeft(head, " \t\r\n\ufeff"); {
	case len(t) > 0 && t[0] == '{':
		err = agg.readLines(name, br, true, decodeHit, `a vegeta result as JSON ({"code":…,"timestamp":…,"latency":…})`)
	case len(t) > 0 && t[0] >= '0' && t[0] <= '9' && !isGob(head):
		err = agg.readLines(name, br, false, new(csvRow).hit, "a vegeta result as CSV (timestamp,code,latency,bytes_out,bytes_in,error,body,…)")
	default:
		err = readGob(name, br, agg)
	}
	if err != nil {
		return nil, err
	}
	return agg.run(name)
}

// readGob decodes results until the stream ends; a stream that ends inside
// a value was cut, and the complete values before it are kept.
func readGob(name string, r *bufio.Reader, agg *tally) error {
	dec := gob.NewDecoder(&gobFrames{r: r})
	for i := 1; ; i++ {
		var h hit
		err := dec.Decode(&h)
		switch {
		case err == nil && importer.CheckTime(h.Timestamp) != nil:
			return &importer.SyntaxError{File: name, Msg: fmt.Sprintf("result %d: %v", i, importer.CheckTime(h.Timestamp))}
		case err == nil:
			// gob carries a zone offset that need not be one a clock has
			// (an hour past 23 does not encode as RFC 3339): UTC has none.
			h.Timestamp = h.Timestamp.UTC()
			agg.add(h)
		case errors.Is(err, io.EOF) && i > 1:
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF) && i > 1:
			agg.notes = append(agg.notes, fmt.Sprintf("file was cut: result %d is incomplete and was skipped; the %d before it were imported", i, i-1))
			return nil
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return &importer.SyntaxError{File: name, Msg: "the stream holds no whole result (it ends inside the first, or a length in it claims more than the file holds); expected a vegeta gob results stream (vegeta attack output)"}
		default:
			// gob's own words are Go's ("undefined type arrayType = struct {…}").
			why := "it does not decode as a vegeta result"
			if errors.Is(err, errGobMessageTooBig) {
				why = err.Error()
			}
			return &importer.SyntaxError{File: name, Msg: fmt.Sprintf("result %d: %s; expected a vegeta gob results stream (vegeta attack output)", i, why)}
		}
	}
}

// readLines reads a result a line (JSON lines close themselves, see
// importer.LineReader.Rows); what is expected of a line that is none.
func (t *tally) readLines(name string, r io.Reader, selfClosing bool, read func([]byte) (hit, error), what string) error {
	notes, err := importer.NewLineReader(r).Rows(name, selfClosing, func(line []byte) error {
		h, err := read(line)
		if err != nil {
			return fmt.Errorf("%v; expected %s", err, what)
		}
		t.add(h)
		return nil
	})
	t.notes = append(t.notes, notes...)
	return err
}

// csvFields are the columns every vegeta CSV has: timestamp, code,
// latency, bytes_out, bytes_in, error, body; vegeta 12 adds attack, seq,
// method, url and headers.
const csvFields = 7

// csvRow reads result lines in place, interning the strings a hit keeps.
type csvRow struct {
	fields [][]byte
	strs   importer.Interner
}

func (r *csvRow) hit(line []byte) (hit, error) {
	var err error
	if r.fields, err = importer.SplitCSV(r.fields, line, ','); err != nil {
		return hit{}, err
	}
	f := r.fields
	if len(f) < csvFields {
		return hit{}, fmt.Errorf("%d fields, expected at least %d", len(f), csvFields)
	}
	ts, err1 := strconv.ParseInt(string(f[0]), 10, 64)
	code, err2 := strconv.ParseUint(string(f[1]), 10, 16)
	lat, err3 := strconv.ParseInt(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || lat < 0 {
		return hit{}, fmt.Errorf("timestamp %q, code %q, latency %q: expected nanoseconds, a status and nanoseconds", f[0], f[1], f[2])
	}
	h := hit{Timestamp: time.Unix(0, ts).UTC(), Code: uint16(code), Latency: time.Duration(lat), Error: r.strs.String(f[5])}
	if len(f) >= 11 {
		h.Attack, h.Method, h.URL = r.strs.String(f[7]), r.strs.String(f[9]), r.strs.String(f[10])
	}
	return h, nil
}

// decodeHit reads one `vegeta encode` line. The fields every result has
// are required: any JSON object would otherwise decode, as a request with
// status 0 and no latency.
func decodeHit(line []byte) (hit, error) {
	var h hit
	line = bytes.TrimSpace(line)
	var typ *json.UnmarshalTypeError
	if err := json.Unmarshal(line, &h); errors.As(err, &typ) {
		return h, errors.New(importer.JSONTypeError(typ))
	} else if err != nil {
		return h, err
	}
	var present struct {
		Code      *uint16          `json:"code"`
		Timestamp *json.RawMessage `json:"timestamp"`
		Latency   *int64           `json:"latency"`
	}
	_ = json.Unmarshal(line, &present) // the same line decoded above
	if present.Code == nil || present.Timestamp == nil || present.Latency == nil {
		return h, fmt.Errorf("not a vegeta result: the line lacks \"code\", \"timestamp\" or \"latency\"")
	}
	return h, nil
}

// otherStep pools the requests past rawrun.MaxSteps distinct targets.
const otherStep = "(other targets)"

type tally struct {
	span     rawrun.Span
	requests *rawrun.Builder
	notes    []string
}

func (t *tally) add(h hit) {
	t.span.Add(h.Timestamp, h.Timestamp)
	step := t.requests.Request(stepName(h), h.Latency)
	if !failedCode(int(h.Code)) && h.Error == "" {
		return
	}
	class := errorClass(int(h.Code), h.Error)
	t.requests.Fail(step, class, strconv.Itoa(int(h.Code)), statusSample(int(h.Code), h.Error))
}

func stepName(h hit) string {
	if h.Method == "" && h.URL == "" {
		return "(unnamed)"
	}
	return importer.ClipName(h.Method + " " + importer.ClipName(h.URL))
}

func (t *tally) run(name string) (*result.Run, error) {
	total := t.requests.Requests().Total
	if total == 0 && len(t.notes) > 0 {
		return nil, &importer.SyntaxError{File: name, Msg: "file was cut before its first complete result"}
	}
	if total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "vegeta results stream holds no results"}
	}
	run := t.requests.Run(t.notes...)
	run.Started = t.span.First
	run.Window = t.span.Seconds()
	importer.Summarize(run)
	return run, nil
}

func init() { importer.Register(Report{}, Results{}, Text{}) }

// failedCode is vegeta's own rule: a response succeeded when its status is
// in [200, 400); status 0 means no response at all.
func failedCode(code int) bool { return code < 200 || code >= 400 }

// errorClass: status 0 is a request that got no response.
func errorClass(code int, msg string) string {
	return importer.MessageClasses{Status: func(string) bool { return code != 0 },
		Timeout: []string{"timeout", "deadline exceeded", "timed out"}, Connection: []string{""}}.Class(msg)
}

func statusSample(code int, msg string) string { return cmp.Or(msg, "status "+strconv.Itoa(code)) }

// maxGobMessage bounds one message of a gob stream: a type definition or
// one result. A result holds its response body, so a large one is
// possible, but not beyond this.
const maxGobMessage = 64 << 20

var errGobMessageTooBig = errors.New("a gob message longer than 64 MiB")

// gobFrames hands a gob stream to the decoder one whole message at a time.
// gob trusts the length that opens each message and sizes its buffer by
// it; this reader reads the message first, into memory that grows with
// the bytes actually read, so that a file claiming more than it holds is
// cut, not a large allocation. A message cut short ends the stream with
// io.ErrUnexpectedEOF, as gob itself reports it.
type gobFrames struct {
	r   *bufio.Reader
	msg bytes.Buffer // the current message, with its length prefix
	err error
}

func (g *gobFrames) Read(p []byte) (int, error) {
	if g.msg.Len() == 0 {
		if g.err != nil {
			return 0, g.err
		}
		if g.err = g.next(); g.err != nil {
			return 0, g.err
		}
	}
	return g.msg.Read(p)
}

// next reads the next message, with its length in front (the decoder
// reads the framing itself), into msg. A stream that ends between
// messages ends with io.EOF.
func (g *gobFrames) next() error {
	g.msg.Reset()
	prefix, n, err := g.readLength()
	if err != nil {
		return err
	}
	if n > maxGobMessage {
		return fmt.Errorf("%w (%d bytes)", errGobMessageTooBig, n)
	}
	g.msg.Write(prefix)
	got, err := io.Copy(&g.msg, io.LimitReader(g.r, int64(n)))
	if err != nil {
		return err
	}
	if uint64(got) < n {
		g.msg.Reset()
		return io.ErrUnexpectedEOF
	}
	return nil
}

// readLength reads a message length as gob writes an unsigned integer: one
// byte below 0x80, or the negated count of big-endian bytes that follow.
func (g *gobFrames) readLength() (prefix []byte, n uint64, err error) {
	b, err := g.r.ReadByte()
	if err != nil {
		return nil, 0, err // io.EOF between messages: the stream's end
	}
	if b < 0x80 {
		return []byte{b}, uint64(b), nil
	}
	width := 0x100 - int(b) // the byte is the count negated
	if width > 8 {
		return nil, 0, fmt.Errorf("gob message length of %d bytes; at most 8", width)
	}
	prefix = make([]byte, 1+width)
	prefix[0] = b
	if _, err := io.ReadFull(g.r, prefix[1:]); err != nil {
		return nil, 0, io.ErrUnexpectedEOF
	}
	for _, c := range prefix[1:] {
		n = n<<8 | uint64(c)
	}
	return prefix, n, nil
}
