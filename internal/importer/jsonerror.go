package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSONError turns an error of decoding a whole JSON document into a
// *SyntaxError at the line it happened on: a file that ends too early is
// cut; what names the document that was expected.
func JSONError(file string, data []byte, err error, what string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case IsCutJSON(data, err):
		return CutJSON(file, data, "expected a "+what)
	case errors.As(err, &syn):
		return &SyntaxError{File: file, Line: lineAt(data, syn.Offset), Msg: fmt.Sprintf("invalid JSON (%v); expected a %s", syn, what)}
	case errors.As(err, &typ):
		return &SyntaxError{File: file, Line: lineAt(data, typ.Offset), Msg: fmt.Sprintf("field %q: expected %s, got JSON %s; expected a %s", typ.Field, typ.Type, typ.Value, what)}
	}
	return &SyntaxError{File: file, Msg: fmt.Sprintf("%v; expected a %s", err, what)}
}

// lineAt is the 1-based line holding byte offset off.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// IsCutJSON reports whether err, of decoding the whole document data, is
// its end coming too early: the file was cut (a summary holds one figure
// per key, and those after the cut are unknown, so it is refused).
func IsCutJSON(data []byte, err error) bool {
	var syn *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n")))
}

// CutJSON is the refusal of a cut JSON document; expected says what it
// was to be ("expected a …").
func CutJSON(file string, data []byte, expected string) error {
	return &SyntaxError{File: file, Line: lineAt(data, int64(len(data))), Msg: "file is cut: the JSON ends before the document does; " + expected}
}
