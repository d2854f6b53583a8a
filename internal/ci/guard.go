package ci

import (
	"io"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Guard is one stream of the job log (stdout or stderr) as the runner
// reads it: text written to it can never form a workflow command, and
// only a Runtime issues commands on it.
//
// The runner splits a step's output at "\r", "\n" and "\r\n" and takes a
// line as a command when, with leading white space trimmed, it starts with
// "::" ("::name props::data"), or when it holds "##[" anywhere
// ("##[name props]data"). Guard writes everything through and inserts one
// backslash before a ':' that is the first significant character of a
// line, and before a '[' whose two previous significant characters are
// "##". A significant character is a letter, number, punctuation mark or
// symbol; everything else (spaces, control and format characters, marks,
// invalid UTF-8) is skipped, so that nothing the runner trims or a
// culture-aware comparison ignores can hide a command. A line starts after
// more breaks than the runner splits at (lineBreak).
//
// A Guard is safe for concurrent use; it keeps no text, only where the
// stream stands.
type Guard struct {
	mu  sync.Mutex
	dst io.Writer

	// lineStart: no significant character since the last line break (or
	// since the start of the stream), so a ':' now would start a command.
	lineStart bool
	// hashes counts the '#' that end the significant characters so far;
	// two or more, and a '[' now would start a legacy command.
	hashes int
	// atBreak: the last byte written was "\n" or "\r" (or nothing was
	// written), so a command issued now starts a runner line.
	atBreak bool
	// carry holds an unfinished UTF-8 sequence at the end of the last
	// write (already written through), to classify the character it
	// begins once the rest arrives.
	carry  [utf8.UTFMax]byte
	ncarry int
	buf    []byte
}

var _ io.Writer = (*Guard)(nil)

// NewGuard returns a Guard writing to dst, the stream the runner reads.
func NewGuard(dst io.Writer) *Guard {
	return &Guard{dst: dst, lineStart: true, atBreak: true}
}

// Write writes p with every command neutralised. It reports len(p) on
// success, though it may write a few bytes more.
func (g *Guard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.write(p, true)
}

// commands is the privileged path of a Guard, used by Runtime alone:
// each write is whole command lines, written as they are, starting on a
// line of their own.
type commands struct{ g *Guard }

func (c commands) Write(p []byte) (int, error) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.atBreak || g.ncarry > 0 {
		if _, err := g.write([]byte("\n"), false); err != nil {
			return 0, err
		}
	}
	return g.write(p, false)
}

// commandWriter is what a Runtime writes its commands to when its writer
// is a Guard; other writers (tests, runs outside Actions) get them as
// they are.
func commandWriter(w io.Writer) io.Writer {
	if g, ok := w.(*Guard); ok {
		return commands{g}
	}
	return w
}

// write writes p through, with backslashes inserted when neutralise is
// set, and advances the stream's state either way.
func (g *Guard) write(p []byte, neutralise bool) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	written, data := g.ncarry, p // the first written bytes of data went out with an earlier call
	if g.ncarry > 0 {
		data = append(g.carry[:g.ncarry:g.ncarry], p...)
	}
	out := g.buf[:0]
	g.ncarry = 0
	for i := 0; i < len(data); {
		if !utf8.FullRune(data[i:]) { // only at the end: keep it for the next write
			g.ncarry = copy(g.carry[:], data[i:])
			out = append(out, data[max(i, written):]...)
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		if neutralise && g.startsCommand(r) {
			out = append(out, '\\')
		}
		g.advance(r)
		if end := i + size; end > written {
			out = append(out, data[max(i, written):end]...)
		}
		i += size
	}
	g.buf = out[:0]
	if _, err := g.dst.Write(out); err != nil {
		return 0, err
	}
	last := out[len(out)-1]
	g.atBreak = last == '\n' || last == '\r'
	return len(p), nil
}

func (g *Guard) startsCommand(r rune) bool {
	return (r == ':' && g.lineStart) || (r == '[' && g.hashes >= 2)
}

func (g *Guard) advance(r rune) {
	switch {
	case lineBreak(r):
		g.lineStart = true
	case !significant(r):
	case r == '#':
		g.lineStart = false
		g.hashes++
	default:
		g.lineStart = false
		g.hashes = 0
	}
}

// significant reports whether r counts when looking for a command: a
// letter, number, punctuation mark or symbol, but not the replacement
// character a byte that is not UTF-8 decodes to.
func significant(r rune) bool {
	return r != utf8.RuneError && unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S)
}

// lineBreak reports whether a new line could start after r: the runner's
// "\r" and "\n", and the other line and paragraph separators, in case a
// reader splits at them.
func lineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}
