package jsonmatch

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	body := []byte(`{"count":3,"state":"RESOLVED","ok":true,"items":[{"id":7}],"none":null,"tags":["a","b"]}`)
	cases := []struct {
		want    map[string]any
		wantErr string // "" means match
	}{
		{map[string]any{"count": 3}, ""},
		{map[string]any{"count": 3.0}, ""},
		{map[string]any{"count": uint64(3)}, ""},
		{map[string]any{"count": 4}, "count = 3, want 4"},
		{map[string]any{"count": "3"}, "count = 3, want 3"}, // a string never equals a number
		{map[string]any{"state": "RESOLVED", "ok": true}, ""},
		{map[string]any{"state": "OPEN"}, `state = "RESOLVED", want OPEN`},
		{map[string]any{"items.0.id": 7, "items.#": 1}, ""},
		{map[string]any{"missing": 1}, "missing: missing"},
		{map[string]any{"none": nil}, ""},
		{map[string]any{"tags": []any{"a", "b"}}, ""},
		{map[string]any{"tags": []any{"b", "a"}}, "tags ="},
	}
	for _, c := range cases {
		err := Match(body, c.want)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("Match(%v) = %v, want match", c.want, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("Match(%v) = %v, want error containing %q", c.want, err, c.wantErr)
		}
	}
}

func TestMatchNotJSON(t *testing.T) {
	t.Parallel()
	if err := Match([]byte("<html>"), map[string]any{"a": 1}); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("got %v, want a not-JSON error", err)
	}
}

func TestGet(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"c-12","n":5}`)
	if v, ok := Get(body, "id"); !ok || v != "c-12" {
		t.Errorf("Get(id) = %q, %v", v, ok)
	}
	if v, ok := Get(body, "n"); !ok || v != "5" {
		t.Errorf("Get(n) = %q, %v", v, ok)
	}
	if _, ok := Get(body, "x"); ok {
		t.Errorf("Get(x) found a missing path")
	}
}
