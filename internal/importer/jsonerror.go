package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// JSONError turns an error of decoding a whole JSON document into a
// *SyntaxError at the line it happened on, in words of JSON, never of Go
// (`metrics.thresholds: true or false where an object belongs`): an empty
// file is empty, one that ends too early is cut; expected says what the
// document was to be ("expected a …").
func JSONError(file string, data []byte, err error, expected string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return &SyntaxError{File: file, Msg: "the file is empty; " + expected}
	// The end coming too early is a cut file (a summary holds one figure
	// per key, and those after the cut are unknown, so it is refused).
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))):
		return &SyntaxError{File: file, Line: LineAt(data, int64(len(data))), Msg: "file is cut: the JSON ends before the document does; " + expected}
	case errors.As(err, &syn):
		return &SyntaxError{File: file, Line: LineAt(data, syn.Offset), Msg: fmt.Sprintf("invalid JSON (%v); %s", syn, expected)}
	case errors.As(err, &typ):
		return &SyntaxError{File: file, Line: LineAt(data, typ.Offset), Msg: JSONTypeError(typ) + "; " + expected}
	}
	return &SyntaxError{File: file, Msg: fmt.Sprintf("%v; %s", err, expected)}
}

// JSONTypeError says where a JSON value of the wrong kind is, and what
// was there and what belongs there, in words of JSON.
func JSONTypeError(typ *json.UnmarshalTypeError) string {
	field := cmp.Or(strings.TrimPrefix(typ.Field, "."), "the document")
	return fmt.Sprintf("%s: %s where %s belongs", field, jsonFound(typ.Value), jsonWanted(typ.Type))
}

// jsonFound names the JSON value the decoder found ("bool", "number 1e400").
func jsonFound(value string) string {
	kind, _, _ := strings.Cut(value, " ")
	switch kind {
	case "bool":
		return "true or false"
	case "number", "string":
		return "a " + value
	case "object", "array":
		return "an " + kind
	}
	return "a JSON " + value
}

var jsonKinds = map[reflect.Kind]string{
	reflect.Struct: "an object", reflect.Map: "an object", reflect.Slice: "an array", reflect.Array: "an array",
	reflect.String: "a string", reflect.Bool: "true or false", reflect.Float32: "a number", reflect.Float64: "a number",
	reflect.Int: "a whole number", reflect.Int8: "a whole number", reflect.Int16: "a whole number",
	reflect.Int32: "a whole number", reflect.Int64: "a whole number", reflect.Uint: "a whole number ≥ 0",
	reflect.Uint8: "a whole number ≥ 0", reflect.Uint16: "a whole number ≥ 0", reflect.Uint32: "a whole number ≥ 0",
	reflect.Uint64: "a whole number ≥ 0",
}

// jsonWanted names the JSON value a Go type reads.
func jsonWanted(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil {
		if w, ok := jsonKinds[t.Kind()]; ok {
			return w
		}
	}
	return "another value"
}

// LineAt is the 1-based line holding byte offset off.
func LineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// DecodeJSON reads the whole document r into v and returns its bytes; a
// document that does not decode is JSONError's *SyntaxError.
func DecodeJSON(file string, r io.Reader, v any, expected string) ([]byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return data, JSONError(file, data, err, expected)
	}
	return data, nil
}
