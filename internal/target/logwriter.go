package target

import (
	"bytes"
	"io"
	"sync"
)

// tailSize is how much recent output is kept to explain an early exit.
const tailSize = 2000

// prefixWriter copies a process's output to a log, each line prefixed, and
// keeps the last tailSize bytes for error messages.
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
	w.keepTail(p)
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.emit(w.partial[:i+1])
		w.partial = w.partial[i+1:]
	}
	return len(p), nil
}

// Flush writes an unfinished last line.
func (w *prefixWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.emit(append(w.partial, '\n'))
		w.partial = nil
	}
}

// Tail returns the most recent output.
func (w *prefixWriter) Tail() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.tail)
}

// emit writes one line; a failing log must not stop the target, so write
// errors are dropped.
func (w *prefixWriter) emit(line []byte) {
	if w.dst == nil {
		return
	}
	w.dst.Write(append(bytes.Clone(w.prefix), line...))
}

func (w *prefixWriter) keepTail(p []byte) {
	w.tail = append(w.tail, p...)
	if over := len(w.tail) - tailSize; over > 0 {
		w.tail = append(w.tail[:0], w.tail[over:]...)
	}
}
