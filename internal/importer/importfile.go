package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// headSize is how much of a file Detect sees.
const headSize = 64 << 10

// Several is a Format whose files may hold several runs one after another,
// such as a log of a sweep of wrk runs. Its Import takes a file of one run
// and refuses one of several; ImportAll takes either.
type Several interface {
	Format
	ImportAll(name string, r io.Reader) ([]*result.Run, error)
}

// Imported is what one file held: its format and its runs, in file order.
type Imported struct {
	Format string
	Runs   []*result.Run
}

// Read reads the result file at path. An empty format detects it from the
// file's name and first bytes; a named format is used as is, and refuses a
// file that is not in it. Errors name the file; a file in no known format
// is *Unsupported, and a run that result JSON cannot hold is a
// *SyntaxError: both are bad input.
func Read(path, format string) (*Imported, error) {
	return ReadContext(context.Background(), path, format)
}

// ReadContext is Read that stops when ctx ends (an interrupted import of
// a large file, or of a pipe that never ends): it then returns ctx's error.
func ReadContext(ctx context.Context, path, format string) (*Imported, error) {
	var f Format
	if format != "" {
		var ok bool
		if f, ok = Lookup(format); !ok {
			return nil, fmt.Errorf("unknown format %q; known formats: %s", format, strings.Join(Names(), ", "))
		}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	// Closing the file ends a read that waits (on a pipe); ctxReader ends
	// a parse that reads on.
	stop := context.AfterFunc(ctx, func() { fh.Close() })
	defer stop()
	head, in, err := readText(ctx, path, ctxReader{ctx, fh})
	if err != nil {
		return nil, err
	}
	if f == nil {
		if f, err = Detect(path, head); err != nil {
			return nil, &Unsupported{File: path, Reason: fmt.Sprintf(
				"format not recognised (known: %s); name it with --format", strings.Join(Names(), ", "))}
		}
	}
	runs, err := ImportAll(f, path, in)
	if ctx.Err() != nil {
		return nil, ctx.Err() // whatever the format made of the cut-off read
	}
	if err != nil {
		var syn *SyntaxError
		var uns *Unsupported
		if !errors.As(err, &syn) && !errors.As(err, &uns) { // these already name the file
			err = fmt.Errorf("importing %s as %s: %w", path, f.Name(), err)
		}
		return nil, err
	}
	for _, run := range runs {
		if err := Encodable(path, run); err != nil {
			return nil, err
		}
		clipNames(run)
	}
	return &Imported{Format: f.Name(), Runs: runs}, nil
}

// readText reads the head of a file of text: UTF-16 (PowerShell's > and
// Out-File before PowerShell 6) is read as the UTF-8 its tool wrote, and
// so is a file with a UTF-8 byte order mark. It returns the head Detect
// sees, and the whole file, head and all, as UTF-8.
func readText(ctx context.Context, path string, in io.Reader) ([]byte, io.Reader, error) {
	head, err := readHead(ctx, path, in)
	if err != nil {
		return nil, nil, err
	}
	if enc := utf16Of(head); enc != nil {
		in = transform.NewReader(io.MultiReader(bytes.NewReader(head), in), enc.NewDecoder())
		if head, err = readHead(ctx, path, in); err != nil {
			return nil, nil, err
		}
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	if len(bytes.TrimSpace(head)) == 0 {
		// Before --format: "not recognised" would mislead.
		return nil, nil, &Unsupported{File: path, Reason: "the file is empty: the load tool wrote no result (did it fail before its report?)"}
	}
	return head, io.MultiReader(bytes.NewReader(head), in), nil
}

func readHead(ctx context.Context, path string, in io.Reader) ([]byte, error) {
	head := make([]byte, headSize)
	n, err := io.ReadFull(in, head)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return head[:n], nil
}

// utf16Of is the UTF-16 encoding of a file that starts with head, or nil.
// A load tool's output is mostly ASCII, which in UTF-16 has a zero byte in
// every pair (the second in little endian, the first in big endian) and in
// UTF-8 none: a quarter of the pairs with zeros at one place and almost
// none at the other is UTF-16. A byte order mark alone is not enough: a
// binary format may start with one.
func utf16Of(head []byte) encoding.Encoding {
	pairs := min(len(head), 8192) / 2
	var zero [2]int
	for i, b := range head[:2*pairs] {
		if b == 0 {
			zero[i%2]++
		}
	}
	switch {
	case pairs < 2:
	case zero[1] >= pairs/4 && zero[0] <= zero[1]/16:
		return unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	case zero[0] >= pairs/4 && zero[1] <= zero[0]/16:
		return unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	}
	return nil
}

// clipNames bounds the step names a file gives (a URL, a JMeter label) as
// a config's are, so that one name cannot fill the log or the PR comment.
func clipNames(run *result.Run) {
	for i := range run.Steps {
		run.Steps[i].Name = ClipName(run.Steps[i].Name)
	}
	for i := range run.Errors {
		run.Errors[i].Step = ClipName(run.Errors[i].Step)
	}
}

// ClipName is printable.Clip(s, printable.MaxName) at the cost of the
// characters kept: a name from a file can be a URL of a gigabyte, which
// Clip would convert whole. Formats clip names so as they read them.
func ClipName(s string) string {
	n := 0
	for i := range s {
		if n == printable.MaxName+1 {
			s = s[:i] // still more than MaxName: Clip cuts it as it would the whole
			break
		}
		n++
	}
	return printable.Clip(s, printable.MaxName)
}

// ImportAll reads every run of a file in format f, one or several.
func ImportAll(f Format, name string, r io.Reader) ([]*result.Run, error) {
	if s, ok := f.(Several); ok {
		return s.ImportAll(name, r)
	}
	run, err := f.Import(name, r)
	if err != nil {
		return nil, err
	}
	return []*result.Run{run}, nil
}

// ImportFile reads a result file that holds one run, as a load tool
// writes per run of tailgate's engine: command. See Read.
func ImportFile(path, format string) (*result.Run, error) {
	im, err := Read(path, format)
	if err != nil {
		return nil, err
	}
	if len(im.Runs) != 1 {
		return nil, &Unsupported{File: path, Reason: fmt.Sprintf("holds %d %s reports; one run's output must hold one", len(im.Runs), im.Format)}
	}
	return im.Runs[0], nil
}

// One makes Import of a Several format: the file's one run, or why not.
func One(name, tool string) func([]*result.Run, error) (*result.Run, error) {
	return func(runs []*result.Run, err error) (*result.Run, error) {
		if err == nil && len(runs) != 1 {
			err = &Unsupported{File: name, Reason: fmt.Sprintf("%d %s reports in one file; tailgate import takes each as a run", len(runs), tool)}
		}
		if err != nil {
			return nil, err
		}
		return runs[0], nil
	}
}

// Encodable checks what result JSON cannot hold: a time outside the years
// 0–9999 or a metric that is not a finite number. Such a run comes from a
// corrupt file: a *SyntaxError (bad input), not a failure to write.
func Encodable(name string, run *result.Run) error {
	if CheckTime(run.Started) != nil {
		return &SyntaxError{File: name, Msg: fmt.Sprintf("the run starts in the year %d; timestamps must fall in the years 0–9999", run.Started.Year())}
	}
	maps := []map[string]float64{run.Metrics}
	for _, s := range run.Steps {
		maps = append(maps, s.Metrics)
	}
	for _, m := range maps {
		for k, v := range m {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &SyntaxError{File: name, Msg: fmt.Sprintf("metric %s is %v; expected a finite number", k, v)}
			}
		}
	}
	return nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
