package gatling

import (
	"bytes"
	"errors"
)

// Gatling's HTML report (up to 3.13) writes js/stats.js beside
// js/stats.json: the same tree as a JavaScript statement, "var stats = {…}"
// followed by the report's functions, with the tree's own keys (type,
// name, path, pathFormatted, stats, contents) unquoted and each node's
// figures as JSON. Some reports keep only stats.js, so it is read too:
// the object is cut out and its bare keys quoted, which makes it the JSON
// of stats.json, line for line.

// statsJSPrefix opens js/stats.js.
var statsJSPrefix = []byte("var stats = ")

func isStatsJS(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), statsJSPrefix)
}

// statsJSToJSON returns the object of a stats.js as JSON. Bytes before the
// object become spaces and line breaks stay where they are, so that a
// decoding error's line is the line in the file.
func statsJSToJSON(data []byte) ([]byte, error) {
	at := bytes.Index(data, statsJSPrefix) + len(statsJSPrefix)
	open := bytes.IndexByte(data[at:], '{')
	if open < 0 {
		return nil, errors.New(`"var stats = " is not followed by an object`)
	}
	out := make([]byte, 0, len(data)+len(data)/8)
	for _, c := range data[:at+open] {
		if c != '\n' {
			c = ' '
		}
		out = append(out, c)
	}
	depth, inString, escaped, expectKey := 0, false, false, false
	for i := at + open; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString, expectKey = true, false
		case c == '{':
			depth++
			expectKey = true
		case c == ',':
			expectKey = depth > 0
		case c == '}':
			depth--
			if depth == 0 {
				return append(out, c), nil
			}
		case expectKey && isIdentStart(c):
			j := i
			for j < len(data) && isIdent(data[j]) {
				j++
			}
			out = append(append(append(out, '"'), data[i:j]...), '"')
			i = j - 1
			expectKey = false
			continue
		case c != ' ' && c != '\t' && c != '\r' && c != '\n':
			expectKey = false
		}
		out = append(out, c)
	}
	return nil, errors.New("the stats object is not closed: the file is cut")
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdent(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
