package config

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	_ yaml.Unmarshaler = (*SaveFrom)(nil)
	_ yaml.Marshaler   = SaveFrom{}
	_ json.Marshaler   = SaveFrom{}
)

// SaveFrom says where a step's saved value is read from in its response:
// exactly one of a JSON path in the body, a header field, or a cookie the
// response sets. In YAML a plain string is a JSON path (`id`,
// `items.0.id`); the other sources are one-key mappings:
// `{header: X-CSRF-Token}`, `{cookie: session}`, `{json: data.id}`.
type SaveFrom struct {
	// From is SaveJSON (also when empty), SaveHeader or SaveCookie.
	From string
	// Name is the JSON path, the header field's name or the cookie's.
	Name string
}

// Sources of saved values.
const (
	SaveJSON   = "json"
	SaveHeader = "header"
	SaveCookie = "cookie"
)

// saveForm is the hint every save error ends with.
const saveForm = "expected a JSON path such as data.id, or one of {json: PATH}, {header: NAME}, {cookie: NAME}"

// UnmarshalYAML reads a JSON path from a scalar, or a one-key mapping.
func (s *SaveFrom) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() != strTag {
			return fmt.Errorf("%s, got %s", saveForm, describe(n))
		}
		*s = SaveFrom{From: SaveJSON, Name: n.Value}
		return nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return fmt.Errorf("%s: one key, got %d", saveForm, len(n.Content)/2)
		}
		k, v := n.Content[0], resolveAlias(n.Content[1])
		if v.Kind != yaml.ScalarNode || v.ShortTag() != strTag {
			return fmt.Errorf("save from %s: expected a name, got %s", k.Value, describe(v))
		}
		switch k.Value {
		case SaveJSON, SaveHeader, SaveCookie:
			*s = SaveFrom{From: k.Value, Name: v.Value}
			return nil
		}
		return fmt.Errorf("unknown source %q: %s", k.Value, saveForm)
	}
	return fmt.Errorf("%s, got %s", saveForm, describe(n))
}

// MarshalYAML writes a JSON path as a plain string and another source as
// its one-key mapping, the forms UnmarshalYAML reads.
func (s SaveFrom) MarshalYAML() (any, error) {
	kind, name := s.Source()
	if kind == SaveJSON {
		return name, nil
	}
	return map[string]string{kind: name}, nil
}

// MarshalJSON writes a JSON path as a plain string, so that a definition
// saving only JSON paths hashes as it did when that was the only source.
func (s SaveFrom) MarshalJSON() ([]byte, error) {
	v, _ := s.MarshalYAML()
	return json.Marshal(v)
}

// Source returns the kind of source (SaveJSON, SaveHeader or
// SaveCookie) and the path or name read there.
func (s SaveFrom) Source() (kind, name string) {
	if s.From == "" {
		return SaveJSON, s.Name
	}
	return s.From, s.Name
}

// String writes the source as in messages: `header X-CSRF-Token`,
// `cookie session`, or the JSON path.
func (s SaveFrom) String() string {
	kind, name := s.Source()
	if kind == SaveJSON {
		return name
	}
	return kind + " " + name
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of header field and cookie names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
