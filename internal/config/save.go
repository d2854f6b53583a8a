package config

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// SaveFrom says where a step's saved value is read from in its response:
// a JSON path (in YAML a plain string), a header, a cookie, optionally
// through a regular expression, or the whole body by one.
type SaveFrom struct {
	From  string // SaveJSON (also when empty), SaveHeader, SaveCookie or SaveBody (read by Regex)
	Name  string // the JSON path, the header field's name or the cookie's
	Regex string // the value saved is its one group, or the whole match
}

const (
	SaveJSON   = "json"
	SaveHeader = "header"
	SaveCookie = "cookie"
	SaveBody   = "body"
	saveRegex  = "regex"
)

// saveForm is the hint every save error ends with.
const saveForm = "expected a JSON path such as data.id, or one of {json: PATH}, {header: NAME}, {cookie: NAME}, {regex: RE}, {header: NAME, regex: RE}"

// UnmarshalYAML reads a JSON path from a scalar, or a mapping of one
// source and an optional regex (a regex alone reads the body).
func (s *SaveFrom) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() != strTag {
			return fmt.Errorf("%s, got %s", saveForm, describe(n))
		}
		*s = SaveFrom{From: SaveJSON, Name: n.Value}
		return nil
	case yaml.MappingNode:
		*s = SaveFrom{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], resolveAlias(n.Content[i+1])
			if v.Kind != yaml.ScalarNode || v.ShortTag() != strTag {
				return fmt.Errorf("save from %s: expected a string, got %s", k.Value, describe(v))
			}
			switch {
			case k.Value == saveRegex && s.Regex == "":
				s.Regex = v.Value
			case (k.Value == SaveJSON || k.Value == SaveHeader || k.Value == SaveCookie) && s.From == "":
				s.From, s.Name = k.Value, v.Value
			case k.Value == saveRegex || k.Value == SaveJSON || k.Value == SaveHeader || k.Value == SaveCookie:
				return fmt.Errorf("one source and at most one regex, got %s: %s", k.Value, saveForm)
			default:
				return fmt.Errorf("unknown source %q: %s", k.Value, saveForm)
			}
		}
		switch {
		case s.From == "" && s.Regex == "":
			return fmt.Errorf("%s, got an empty mapping", saveForm)
		case s.From == "":
			s.From = SaveBody
		}
		return nil
	}
	return fmt.Errorf("%s, got %s", saveForm, describe(n))
}

func (s SaveFrom) MarshalYAML() (any, error) {
	kind, name := s.Source()
	m := map[string]string{}
	switch {
	case kind == SaveJSON && s.Regex == "":
		return name, nil
	case kind != SaveBody:
		m[kind] = name
	}
	if s.Regex != "" {
		m[saveRegex] = s.Regex
	}
	return m, nil
}

// MarshalJSON writes a JSON path as a plain string, so that a definition
// saving only JSON paths hashes as it did when that was the only source.
func (s SaveFrom) MarshalJSON() ([]byte, error) {
	v, _ := s.MarshalYAML()
	return json.Marshal(v)
}

// Source is the kind of source (SaveJSON when unset) and the path or name.
func (s SaveFrom) Source() (kind, name string) { return cmp.Or(s.From, SaveJSON), s.Name }

// CompileSaveRegex compiles a save's regex: at most one capturing group,
// whose text is the value saved (without one, the whole match).
func CompileSaveRegex(re string) (*regexp.Regexp, error) {
	r, err := regexp.Compile(re)
	if err == nil && r.NumSubexp() > 1 {
		err = fmt.Errorf("%d capturing groups: the value saved is the one group's text (or the whole match), so use (?:…) for the others", r.NumSubexp())
	}
	return r, err
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2).
func isToken(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(c rune) bool { return c <= ' ' || c >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) })
}
