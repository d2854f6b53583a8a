package scenario

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// body is a step's compiled request body. A JSON body or a form is
// encoded once, its templated values split out as leaves between constant
// segments: a request only renders the leaves and writes them, escaped,
// between the segments.
type body struct {
	raw         *text                             // Request.Body
	segments    [][]byte                          // JSON or form: len(leaves)+1 constant parts
	leaves      []*text                           // JSON or form: templated values, in document order
	escape      func(dst []byte, s string) []byte // unset for a raw body, as contentType
	contentType string
}

func compileBody(where func(string) string, r *config.Request, sc *scope) (body, error) {
	if r.Form != nil {
		return compileForm(where, r.Form, sc)
	}
	if r.JSON == nil {
		if r.Body == "" {
			return body{}, nil
		}
		t, err := compileText(where("body"), r.Body, sc)
		return body{raw: t}, err
	}
	var leaves []*text
	tree, err := placehold(r.JSON, "", func(path, s string) (string, error) {
		t, err := compileText(where("json "+path), s, sc)
		if err != nil {
			return "", err
		}
		leaves = append(leaves, t)
		return placeholder(len(leaves) - 1), nil
	})
	if err != nil {
		return body{}, err
	}
	doc, err := json.Marshal(tree)
	if err != nil {
		return body{}, fmt.Errorf("%s: cannot be sent as JSON: %w", where("json"), err)
	}
	// json.Marshal sorts map keys, so leaves may appear in another order
	// than they were found: split by each placeholder's position.
	b, rest := body{escape: appendJSONString, contentType: "application/json"}, doc
	for len(b.leaves) < len(leaves) {
		at, idx := firstPlaceholder(rest, len(leaves))
		b.segments, b.leaves = append(b.segments, rest[:at]), append(b.leaves, leaves[idx])
		rest = rest[at+len(quotedPlaceholder(idx)):]
	}
	b.segments = append(b.segments, rest)
	return b, nil
}

// compileForm compiles form fields, in key order, into segments around leaves.
func compileForm(where func(string) string, form map[string]string, sc *scope) (body, error) {
	b := body{escape: appendFormValue, contentType: "application/x-www-form-urlencoded"}
	seg := []byte{}
	for i, k := range slices.Sorted(maps.Keys(form)) {
		if i > 0 {
			seg = append(seg, '&')
		}
		seg = append(appendFormValue(seg, k), '=')
		t, err := compileText(where("form "+k), form[k], sc)
		if err != nil {
			return body{}, err
		}
		if !t.templated() {
			seg = appendFormValue(seg, t.static)
			continue
		}
		b.segments, b.leaves, seg = append(b.segments, seg), append(b.leaves, t), []byte{}
	}
	b.segments = append(b.segments, seg)
	return b, nil
}

func appendFormValue(dst []byte, s string) []byte { return append(dst, url.QueryEscape(s)...) }

// placehold copies v, replacing every string leaf that holds a template by
// the result of leaf, and normalising YAML maps to JSON objects.
func placehold(v any, path string, leaf func(path, s string) (string, error)) (any, error) {
	switch v := v.(type) {
	case string:
		if !bytes.Contains([]byte(v), []byte("{{")) {
			return v, nil
		}
		return leaf(cmp.Or(path, "(root)"), v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			c, err := placehold(v[k], join(path, k), leaf)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			x, err := placehold(c, join(path, fmt.Sprint(i)), leaf)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	default:
		return v, nil
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// placeholder is a string no YAML author writes: NUL bytes marshal to \u0000.
func placeholder(i int) string { return fmt.Sprintf("\x00tailgate-leaf-%d\x00", i) }

func quotedPlaceholder(i int) []byte {
	b, _ := json.Marshal(placeholder(i)) // a plain string always marshals
	return b
}

func firstPlaceholder(doc []byte, n int) (at, idx int) {
	at = -1
	for i := 0; i < n; i++ {
		if j := bytes.Index(doc, quotedPlaceholder(i)); j >= 0 && (at < 0 || j < at) {
			at, idx = j, i
		}
	}
	return at, idx
}

func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size - 1
		case c >= 0x20 && c != '"' && c != '\\':
			dst = append(dst, c)
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	return append(dst, '"')
}
