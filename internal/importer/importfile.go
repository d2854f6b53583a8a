package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// headSize is how much of a file Detect sees.
const headSize = 64 << 10

// ImportFile reads the result file at path. An empty format detects it
// from the file's name and first bytes; a named format is used as is.
// Errors name the file; a file in no known format is *Unsupported.
func ImportFile(path, format string) (*result.Run, error) {
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
	head := make([]byte, headSize)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	head = head[:n]
	if f == nil {
		if f, err = Detect(path, head); err != nil {
			return nil, &Unsupported{File: path, Reason: fmt.Sprintf(
				"format not recognised (known: %s); name it with --format", strings.Join(Names(), ", "))}
		}
	}
	run, err := f.Import(path, io.MultiReader(bytes.NewReader(head), fh))
	if err != nil {
		var syn *SyntaxError
		var uns *Unsupported
		if errors.As(err, &syn) || errors.As(err, &uns) {
			return nil, err // these already name the file
		}
		return nil, fmt.Errorf("importing %s as %s: %w", path, f.Name(), err)
	}
	return run, nil
}
