package cli

import (
	"bytes"
	"io"
	"sync"
)

// prefixWriter returns a writer that prefixes every line written to w,
// safe for the concurrent writes of a child's stdout and stderr.
func prefixWriter(w io.Writer, prefix string) io.Writer {
	return &prefixed{w: w, prefix: []byte(prefix)}
}

type prefixed struct {
	mu      sync.Mutex
	w       io.Writer
	prefix  []byte
	midLine bool
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !p.midLine {
			out.Write(p.prefix)
		}
		out.Write(line)
		p.midLine = line[len(line)-1] != '\n'
	}
	if _, err := p.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
