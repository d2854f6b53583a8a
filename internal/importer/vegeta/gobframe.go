package vegeta

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxGobMessage bounds one message of a gob stream: a type definition or
// one result. A result holds its response body, so a large one is
// possible, but not beyond this.
const maxGobMessage = 64 << 20

// errGobMessageTooBig is a message longer than maxGobMessage.
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

func newGobFrames(r io.Reader) *gobFrames {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &gobFrames{r: br}
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
