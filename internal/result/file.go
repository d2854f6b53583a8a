package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
)

var ErrSchema = errors.New("unsupported result schema")

func Decode(r io.Reader) (*File, error) {
	var f File
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not a tailgate result file: %w", err)
	}
	if f.Schema != SchemaVersion {
		return nil, fmt.Errorf("%w %d (this build reads schema %d)", ErrSchema, f.Schema, SchemaVersion)
	}
	for i := range f.Runs {
		if f.Runs[i].Metrics == nil {
			f.Runs[i].Metrics = map[string]float64{}
		}
	}
	return &f, nil
}

func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Decode(fh)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return f, nil
}

// Encode writes f as indented JSON, stamping the schema version.
func Encode(w io.Writer, f *File) error {
	f.Schema = SchemaVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// WriteFile writes f to path atomically: a reader never sees half a file and
// a failed write leaves the old file in place.
func WriteFile(path string, f *File) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Encode(w, f) })
}
