package config

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/printable"
	"gopkg.in/yaml.v3"
)

const (
	strTag   = "!!str"
	intTag   = "!!int"
	floatTag = "!!float"
	boolTag  = "!!bool"
	nullTag  = "!!null"
	mergeTag = "!!merge"
)

// Bounds against hostile input: nesting and alias chains (the stack), the
// values read and the bytes they stand for with aliases and merge keys
// counted at every use ("billion laughs"), a key path (only ever an
// attack on the messages that quote it), the file itself. nodeCost is
// what one value costs beyond its text (its place in the config and in
// the table of where each key was written).
const (
	maxDepth    = 64
	maxNodes    = 100_000
	maxExpanded = 16 << 20
	maxPath     = 1024
	MaxFileSize = 4 << 20
	nodeCost    = 64
)

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// extensionPrefix marks top-level keys that tailgate ignores, as Compose
// files do: the conventional place to define YAML anchors.
const extensionPrefix = "x-"

// decoder walks a YAML node tree against a Go value strictly (every key a
// field, every scalar of the right type), reporting every problem at its
// position; it records where each key path was written.
type decoder struct {
	c     *collector
	nodes int // values read so far, aliases counted at every use
	bytes int // what they stand for: text, key paths and nodeCost each
	over  bool
}

// tooBig counts a value read at path; it reports, once, a spent budget.
func (d *decoder) tooBig(n *yaml.Node, path string) bool {
	d.refuse(len(path) > maxPath, n, "a key path longer than %d bytes (%s)", maxPath, printable.Clip(path, 80))
	d.nodes++
	d.refuse(d.nodes == maxNodes+1, n, "the file expands to more than %d values (aliases and merge keys included)", maxNodes)
	return d.spend(n, nodeCost+len(resolveAlias(n).Value)+len(path)) || d.nodes > maxNodes || d.over
}

// spend counts size bytes read at n; it reports, once, a spent budget.
func (d *decoder) spend(n *yaml.Node, size int) bool {
	d.bytes += size
	d.refuse(d.bytes > maxExpanded, n, "the file expands to more than %d MiB (aliases and merge keys included)", maxExpanded>>20)
	return d.bytes > maxExpanded
}

// refuse reports, the first time a budget is spent (when over), that the
// file is read no further.
func (d *decoder) refuse(over bool, n *yaml.Node, format string, a ...any) {
	if over && !d.over {
		d.over = true
		d.c.note(posOf(n), format+": refusing to read further", a...)
	}
}

// tooDeep reports, once, nesting beyond maxDepth: the file is read no further.
func (d *decoder) tooDeep(n *yaml.Node, path string, depth int) bool {
	if depth <= maxDepth {
		return false
	}
	if !d.over {
		d.over = true
		d.c.addAt(path, posOf(n), "nested too deeply (more than %d levels)", maxDepth)
	}
	return true
}

// exhausted reports a spent budget: the config is then not read whole, nor checked.
func (d *decoder) exhausted() bool { return d.over || d.nodes > maxNodes || d.bytes > maxExpanded }

// decode fills v (addressable) from n; path names v in messages.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, depth int) {
	if d.tooBig(n, path) || d.tooDeep(n, path, depth) {
		return
	}
	n = resolveAlias(n)
	if isNull(n) {
		return // null leaves the zero value: "not set"
	}
	if v.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := v.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n); err != nil {
			d.c.addAt(path, posOf(n), "%s", err.Error())
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		d.decode(n, elem.Elem(), path, depth+1)
		v.Set(elem)
	case reflect.Struct:
		d.decodeStruct(n, v, path, depth)
	case reflect.Map:
		d.decodeMap(n, v, path, depth)
	case reflect.Slice:
		d.decodeSlice(n, v, path, depth)
	case reflect.Interface:
		if x, ok := d.decodeAny(n, path, depth); ok {
			v.Set(reflect.ValueOf(&x).Elem())
		}
	default:
		d.decodeScalar(n, v, path)
	}
}

// removedKeys are keys retired after a release of warnings (CHANGELOG.md).
var removedKeys = map[string]string{
	"ab.min_pairs": "rename it ab.min_blocks",
	"ab.max_pairs": "rename it ab.max_blocks",
	"ab.design":    "every A/B job follows one rule (docs/config.md#ab); delete the key",
}

// unknownKey reports a key the struct does not have; the absent key it
// looks like a typo of is marked as dealt with ("required" would repeat
// the mistake).
func (d *decoder) unknownKey(key *yaml.Node, path string, fields map[string][]int, present map[string]bool) {
	names, at := fieldNames(fields), joinKey(path, key.Value)
	if hint, ok := removedKeys[at]; ok {
		d.c.addAt(at, posOf(key), "%s was removed after a release of warnings: %s", key.Value, hint)
		return
	}
	// The closest known key is suggested when the key looks like a typo.
	msg, best := fmt.Sprintf("unknown key %q", key.Value), closest(key.Value, names)
	if best != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	}
	d.c.addAt(at, posOf(key), "%s; expected one of: %s", msg, strings.Join(names, ", "))
	if best != "" && !present[best] {
		d.c.flagged[joinKey(path, best)] = true
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, depth int) {
	fields := fieldsOf(v.Type())
	pairs, ok := d.pairs(n, path, "a mapping with the keys "+strings.Join(fieldNames(fields), ", "), depth)
	if !ok {
		return
	}
	present := map[string]bool{}
	for _, p := range pairs {
		present[p.key.Value] = true
	}
	for _, p := range pairs {
		name := p.key.Value
		if path == "" && strings.HasPrefix(name, extensionPrefix) {
			continue // a place for anchors (x-common: &common …), read only where aliased
		}
		if f, known := fields[name]; known {
			d.decodeEntry(p, v.FieldByIndex(f), joinKey(path, name), depth)
		} else {
			d.unknownKey(p.key, path, fields, present)
		}
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string, depth int) {
	pairs, ok := d.pairs(n, path, "a mapping", depth)
	if !ok {
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(pairs))
	for _, p := range pairs {
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decodeEntry(p, elem, joinKey(path, p.key.Value), depth)
		m.SetMapIndex(reflect.ValueOf(p.key.Value).Convert(v.Type().Key()), elem)
	}
	v.Set(m)
}

func (d *decoder) decodeEntry(p pair, v reflect.Value, path string, depth int) {
	val := resolveAlias(p.value)
	if !isNull(val) {
		d.c.spots[path] = spot{key: posOf(p.key), val: posOf(val)}
	}
	d.decode(val, v, path, depth+1)
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string, depth int) {
	if n.Kind != yaml.SequenceNode {
		d.c.addAt(path, posOf(n), "expected a list, got %s", describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		itemPath, item := joinIndex(path, i), resolveAlias(item)
		d.c.spots[itemPath] = spot{key: posOf(item), val: posOf(item)}
		if isNull(item) {
			d.c.addAt(itemPath, posOf(item), "empty list item")
			continue
		}
		d.decode(item, s.Index(i), itemPath, depth+1)
	}
	v.Set(s)
}

// decodeAny reads free-form YAML (JSON bodies, expected values) as plain values.
func (d *decoder) decodeAny(n *yaml.Node, path string, depth int) (any, bool) {
	if d.tooBig(n, path) || d.tooDeep(n, path, depth) {
		return nil, false
	}
	n, good := resolveAlias(n), true
	child := func(k, v *yaml.Node, key string) any {
		d.c.spots[key] = spot{key: posOf(resolveAlias(k)), val: posOf(resolveAlias(v))}
		x, ok := d.decodeAny(v, key, depth+1)
		good = good && ok
		return x
	}
	switch n.Kind {
	case yaml.MappingNode:
		pairs, ok := d.pairs(n, path, "a mapping", depth)
		m := make(map[string]any, len(pairs))
		for _, p := range pairs {
			m[p.key.Value] = child(p.key, p.value, joinKey(path, p.key.Value))
		}
		return m, ok && good
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, item := range n.Content {
			s[i] = child(item, item, joinIndex(path, i))
		}
		return s, good
	}
	return d.anyScalar(n, path)
}

func (d *decoder) anyScalar(n *yaml.Node, path string) (any, bool) {
	switch n.ShortTag() {
	case nullTag:
		return nil, true
	case boolTag, intTag, floatTag:
		var x any
		if err := n.Decode(&x); err != nil {
			d.c.addAt(path, posOf(n), "cannot read %s: %v", describe(n), err)
			return nil, false
		}
		if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			d.c.addAt(path, posOf(n), "%s cannot be sent as JSON: expected a finite number", n.Value)
			return nil, false
		}
		return x, true
	default:
		return n.Value, true
	}
}

func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) {
	tag, ok, want := n.ShortTag(), n.Kind == yaml.ScalarNode, "a string"
	switch v.Kind() {
	case reflect.String:
		if ok {
			v.SetString(n.Value) // any scalar reads as its text: env: {PORT: 8080}
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		var x int64
		if ok, want = ok && tag == intTag && n.Decode(&x) == nil && !v.OverflowInt(x), "an integer"; ok {
			v.SetInt(x)
		}
	case reflect.Float64:
		var x float64
		if ok, want = ok && (tag == intTag || tag == floatTag) && n.Decode(&x) == nil && !math.IsNaN(x) && !math.IsInf(x, 0), "a number"; ok {
			v.SetFloat(x)
		}
	case reflect.Bool:
		var x bool
		if ok, want = ok && tag == boolTag && n.Decode(&x) == nil, "true or false"; ok {
			v.SetBool(x)
		}
	default:
		d.c.addAt(path, posOf(n), "internal error: field type %s is not supported", v.Type())
		return
	}
	if !ok {
		d.c.addAt(path, posOf(n), "expected %s, got %s", want, describe(n))
	}
}

// describe says what a node is, for messages: "a list", `the string "x"`.
func describe(n *yaml.Node) string {
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case nullTag:
		return "nothing (null)"
	case strTag:
		return fmt.Sprintf("the string %q", n.Value)
	case intTag, floatTag:
		return "the number " + n.Value
	case boolTag:
		return n.Value
	}
	return fmt.Sprintf("%q", n.Value)
}

func posOf(n *yaml.Node) position { return position{n.Line, n.Column} }

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == nullTag }

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}
