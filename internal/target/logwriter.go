package target

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

const (
	tailSize  = 4000 // bytes of recent output kept to explain an early exit
	tailLines = 10   // last lines an error quotes
)

// prefixWriter copies output to a log, each line prefixed, keeping a tail.
type prefixWriter struct {
	mu      sync.Mutex
	dst     io.Writer // may be nil: output is only kept for errors
	prefix  []byte
	partial []byte // an unfinished last line
	tail    []byte
}

func newPrefixWriter(dst io.Writer, prefix string) *prefixWriter {
	return &prefixWriter{dst: dst, prefix: []byte(prefix)}
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tail = append(w.tail, p...); len(w.tail) > tailSize {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-tailSize:]...)
	}
	w.partial = append(w.partial, p...)
	for i := bytes.IndexByte(w.partial, '\n'); i >= 0; i = bytes.IndexByte(w.partial, '\n') {
		w.emit(w.partial[:i+1])
		w.partial = w.partial[i+1:]
	}
	return len(p), nil
}

func (w *prefixWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.emit(append(w.partial, '\n'))
		w.partial = nil
	}
}

func (w *prefixWriter) Tail() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.tail)
}

// emit writes one line escaped; a failing log must not stop the target.
func (w *prefixWriter) emit(line []byte) {
	if w.dst == nil {
		return
	}
	text := EscapeControls(string(bytes.TrimSuffix(line, []byte("\n"))))
	w.dst.Write(append(append(bytes.Clone(w.prefix), text...), '\n'))
}

// EscapeControls writes a child's line with Go escapes (\x1b, \r, \u202e,
// \xff) for control characters but tab, bidirectional, zero-width and line
// separator characters and bytes that are not UTF-8, so that a child can
// neither drive the terminal nor reorder or hide what the log shows.
func EscapeControls(s string) string {
	if !strings.ContainsFunc(s, needsEscape) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case needsEscape(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return (unicode.IsControl(r) && r != '\t') || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// targetOutput is a started target's output: to the log file, its end
// kept for errors, and live with a "[target] " prefix when asked.
type targetOutput struct {
	file *os.File // nil without a log file
	path string
	view *prefixWriter
}

func openTargetOutput(path string, live io.Writer) (*targetOutput, error) {
	o := &targetOutput{path: path, view: newPrefixWriter(live, "[target] ")}
	if path == "" {
		return o, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the target's log file: %w", err)
	}
	o.file = f
	return o, nil
}

// Write never fails: a full disk or a closed log must not break the
// target's pipe (it would die of SIGPIPE). A nil file (no log) does nothing.
func (o *targetOutput) Write(p []byte) (int, error) {
	o.file.Write(p)
	return o.view.Write(p)
}

func (o *targetOutput) close() {
	o.view.Flush()
	o.file.Close()
}

// lastLines is the end of the output for an error, and where all of it is.
func (o *targetOutput) lastLines() string {
	s := cmp.Or(EscapeControls(lastLines(o.view.Tail(), tailLines, outputTail)), "no output")
	if o.path != "" {
		s += " (all of it in " + o.path + ")"
	}
	return s
}

// lastLines is the last n non-blank lines of b, whitespace folded, joined
// by " ⏎ " and cut to max bytes from the end.
func lastLines(b []byte, n, max int) string {
	var keep []string
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.Join(strings.Fields(lines[i]), " "); l != "" {
			keep = append(keep, l)
		}
	}
	slices.Reverse(keep)
	s := strings.Join(keep, " ⏎ ")
	if len(s) > max {
		s = "…" + strings.ToValidUTF8(s[len(s)-max:], "")
	}
	return s
}
