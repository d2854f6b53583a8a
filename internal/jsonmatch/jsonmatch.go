// Package jsonmatch owns checking JSON documents against expected values by
// path, as used by step expectations, dataset verification and drain probes.
// Paths use GJSON syntax ("id", "items.0.state", "items.#"), chosen because
// gjson reads a value without decoding the whole body.
package jsonmatch

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/tidwall/gjson"
)

// Get returns the value at path in body as a string, and whether it exists.
// Strings are returned unquoted; other values as their JSON text.
func Get(body []byte, path string) (string, bool) {
	r := gjson.GetBytes(body, path)
	if !r.Exists() {
		return "", false
	}
	if r.Type == gjson.String {
		return r.Str, true
	}
	return r.Raw, true
}

// Match checks every path → expected value of want against body and returns
// an error describing the first mismatch (paths in sorted order, so the
// message is stable). Numbers compare by value, so 3 matches 3.0.
func Match(body []byte, want map[string]any) error {
	if len(want) == 0 {
		return nil
	}
	if !json.Valid(body) {
		return fmt.Errorf("response is not JSON: %s", Snippet(body))
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		got := gjson.GetBytes(body, p)
		if !got.Exists() {
			return fmt.Errorf("%s: missing, want %v", p, want[p])
		}
		if !equal(got, want[p]) {
			return fmt.Errorf("%s = %s, want %v", p, got.Raw, want[p])
		}
	}
	return nil
}

// MatchText checks that the value at path in body, read as Get reads it
// (strings unquoted, other values as their JSON text), is want: how a
// rendered template, which is always text, is compared.
func MatchText(body []byte, path, want string) error {
	if !json.Valid(body) {
		return fmt.Errorf("response is not JSON: %s", Snippet(body))
	}
	got := gjson.GetBytes(body, path)
	switch {
	case !got.Exists():
		return fmt.Errorf("%s: missing, want %s", path, want)
	case got.Type == gjson.String && got.Str == want, got.Type != gjson.String && got.Raw == want:
		return nil
	}
	return fmt.Errorf("%s = %s, want %s", path, got.Raw, want)
}

func equal(got gjson.Result, want any) bool {
	switch w := want.(type) {
	case nil:
		return got.Type == gjson.Null
	case bool:
		return (got.Type == gjson.True || got.Type == gjson.False) && got.Bool() == w
	case string:
		return got.Type == gjson.String && got.Str == w
	case int:
		return got.Type == gjson.Number && got.Num == float64(w)
	case int64:
		return got.Type == gjson.Number && got.Num == float64(w)
	case uint64:
		return got.Type == gjson.Number && got.Num == float64(w)
	case float64:
		return got.Type == gjson.Number && math.Abs(got.Num-w) <= 1e-9*math.Max(1, math.Abs(w))
	default:
		b, err := json.Marshal(w)
		if err != nil {
			return false
		}
		return jsonEqual([]byte(got.Raw), b)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// Snippet returns the start of a body for an error message.
func Snippet(body []byte) string {
	const max = 120
	if len(body) > max {
		return fmt.Sprintf("%q…", body[:max])
	}
	return fmt.Sprintf("%q", body)
}
