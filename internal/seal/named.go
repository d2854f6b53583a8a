package seal

import (
	"path/filepath"
	"strings"
)

// sideDirVars are how a command names its side's tree (TAILGATE_SIDE_DIR):
// a path after one of them is a path in the tree.
var sideDirVars = []string{"$TAILGATE_SIDE_DIR/", "${TAILGATE_SIDE_DIR}/"}

// Named are the relative paths that the words of a command could name: a
// list's arguments, or the words of a shell string split at blanks and
// shell operators, unquoted; a word's part after its last "=" (VAR=path,
// --flag=path); a path after $TAILGATE_SIDE_DIR/. Words that are options,
// absolute, home-relative, outside the directory (..), or hold anything
// the shell would expand are not paths this can know.
//
// This is the rule by which the procedure's files come from the base
// commit (with benchmark_from: base): a file of the base commit's tree
// that a command of the procedure names is the base's for both sides.
func Named(args []string, shell string) []string {
	words := args
	if len(args) == 0 {
		words = strings.Fields(strings.Map(func(r rune) rune {
			if strings.ContainsRune(";|&<>()`\n\t", r) {
				return ' '
			}
			return r
		}, shell))
	}
	var out []string
	for _, w := range words {
		if p, ok := pathWord(w); ok {
			out = append(out, p)
		}
	}
	return out
}

func pathWord(w string) (string, bool) {
	w = strings.NewReplacer(`"`, "", `'`, "").Replace(w)
	if i := strings.LastIndexByte(w, '='); i >= 0 {
		w = w[i+1:]
	}
	for _, v := range sideDirVars {
		w = strings.TrimPrefix(w, v)
	}
	switch {
	case w == "", strings.HasPrefix(w, "-"), strings.HasPrefix(w, "/"), strings.HasPrefix(w, "~"),
		strings.ContainsAny(w, "$*?[{\\"):
		return "", false
	}
	w = filepath.Clean(w)
	if w == "." || w == ".." || strings.HasPrefix(w, "../") {
		return "", false
	}
	return w, true
}
