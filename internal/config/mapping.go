package config

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

type pair struct{ key, value *yaml.Node }

// pairs returns the entries of mapping n with merge keys ("<<: *anchor")
// expanded: explicit keys win over merged ones, earlier merged mappings
// over later ones. It reports non-string and duplicate keys; want says
// what n should have been when it is not a mapping.
func (d *decoder) pairs(n *yaml.Node, path, want string, depth int) ([]pair, bool) {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		d.c.addAt(path, posOf(n), "expected %s, got %s", want, describe(n))
		return nil, false
	}
	var explicit, merged []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == mergeTag {
			merged = append(merged, d.mergedPairs(v, path, depth)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.c.addAt(path, posOf(k), "expected a plain key, got %s", describe(k))
			continue
		}
		explicit = append(explicit, pair{k, v})
	}
	out := make([]pair, 0, len(explicit)+len(merged))
	first := map[string]*yaml.Node{}
	for i, p := range slices.Concat(explicit, merged) {
		if prev, dup := first[p.key.Value]; !dup {
			first[p.key.Value] = p.key
			out = append(out, p)
		} else if i < len(explicit) { // a merged key is overridden, not given twice
			d.c.addAt(joinKey(path, p.key.Value), posOf(p.key), "key %q is given twice (first at line %d)", p.key.Value, prev.Line)
		}
	}
	return out, true
}

// mergedPairs are the entries of a merge key's mapping or list of them.
func (d *decoder) mergedPairs(v *yaml.Node, path string, depth int) []pair {
	if d.exhausted() { // a merge of merges is exponential: stop at the budget
		return nil
	}
	if depth > maxDepth {
		d.c.addAt(path, posOf(v), "merge keys nested too deeply")
		return nil
	}
	v = resolveAlias(v)
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	var out []pair
	for _, src := range sources {
		src = resolveAlias(src)
		if src.Kind != yaml.MappingNode {
			d.c.addAt(path, posOf(src), "a merge key (<<) needs a mapping or a list of mappings, got %s", describe(src))
			continue
		}
		ps, _ := d.pairs(src, path, "a mapping", depth+1)
		for _, p := range ps { // each merge copies its entries: they count at every use
			if d.spend(p.key, nodeCost+len(p.key.Value)) {
				return out
			}
			out = append(out, p)
		}
	}
	return out
}

// fieldsOf maps YAML keys to t's fields, `yaml:",inline"` ones included.
func fieldsOf(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			for k, sub := range fieldsOf(f.Type) {
				out[k] = append([]int{i}, sub...)
			}
			continue
		}
		name = cmp.Or(name, strings.ToLower(f.Name))
		out[name] = []int{i}
	}
	return out
}

func fieldNames(fields map[string][]int) []string { return slices.Sorted(maps.Keys(fields)) }

func closest(name string, known []string) string {
	best, bestDist := "", 2+btoi(len(name) > 3) // a short name: one edit at most
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+btoi(a[i-1] != b[j-1]))
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
