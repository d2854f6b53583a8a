package seal

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// sideDirVars name the side's tree: a path after one is a path in it.
var sideDirVars = []string{"$TAILGATE_SIDE_DIR/", "${TAILGATE_SIDE_DIR}/"}

// redirection (2>&1): its & does not end a command.
var redirection = regexp.MustCompile(`[0-9]*[<>]&[0-9-]*`)

// interpreters run the script their first non-option argument names,
// after the subcommand listed (k6 run).
var interpreters = map[string]string{
	"sh": "", "bash": "", "dash": "", "zsh": "", "ksh": "", ".": "", "source": "",
	"python": "", "python3": "", "node": "", "ruby": "", "perl": "", "php": "", "lua": "",
	"Rscript": "", "tsx": "", "ts-node": "", "deno": "run", "bun": "run", "k6": "run",
	"locust": "",
}

// Makefiles are the files make reads without -f: the first it finds.
var Makefiles = []string{"GNUmakefile", "makefile", "Makefile"}

// prefixes run the command that follows them.
var prefixes = []string{"exec", "then", "do", "else", "elif", "if", "while", "until", "time", "nohup", "env", "command", "builtin", "!", "{"}

// Runs are the relative paths of the files a command runs: each simple
// command's program (after assignments and words such as exec), the
// script an interpreter is given, and the makefiles make reads (-f, else
// every name it looks for, in -C's directory). A file it only reads or
// writes is data, not the procedure. Absolute, home-relative, outside
// (..) or expandable words are not paths this can know. With
// benchmark_from: base, what it names of the base commit's tree is the
// base's for both sides.
func Runs(args []string, shell string) []string {
	if len(args) > 0 {
		return runsOf(args)
	}
	var out []string
	shell = redirection.ReplaceAllString(shell, " ")
	for _, simple := range strings.FieldsFunc(shell, func(r rune) bool { return strings.ContainsRune(";|&()`\n", r) }) {
		out = append(out, runsOf(strings.Fields(simple))...)
	}
	return out
}

// runsOf is what one simple command runs.
func runsOf(words []string) []string {
	for len(words) > 0 && (slices.Contains(prefixes, words[0]) || isAssignment(words[0])) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	var out []string
	if p, ok := pathWord(words[0]); ok {
		out = append(out, p)
	}
	if filepath.Base(unquote(words[0])) == "make" {
		return append(out, makeRuns(words[1:])...)
	}
	sub, isInterpreter := interpreters[filepath.Base(unquote(words[0]))]
	if !isInterpreter {
		return out
	}
	rest := words[1:]
	if sub != "" && len(rest) > 0 && rest[0] == sub {
		rest = rest[1:]
	}
	// The script is the first word that is not an option, unless code or a
	// module (-c, -m, -e) comes first.
	i := slices.IndexFunc(rest, func(w string) bool { return !strings.HasPrefix(w, "-") || w == "-c" || w == "-m" || w == "-e" })
	if i < 0 || strings.HasPrefix(rest[i], "-") {
		return out
	}
	if p, ok := pathWord(rest[i]); ok {
		out = append(out, p)
	}
	return out
}

// makeRuns are the makefiles make's args read (nil where -C's directory
// is unknowable).
func makeRuns(args []string) []string {
	dir, files := "", []string(nil)
	for i := 0; i < len(args); i++ {
		w, val := unquote(args[i]), ""
		name, v, long := strings.Cut(w, "=")
		switch {
		case slices.Contains([]string{"-f", "-C", "--file", "--makefile", "--directory"}, w) && i+1 < len(args):
			i++
			name, val = w, args[i]
		case long && slices.Contains([]string{"--file", "--makefile", "--directory"}, name):
			val = v
		case len(w) > 2 && (w[:2] == "-f" || w[:2] == "-C"):
			name, val = w[:2], w[2:]
		default:
			continue
		}
		if name == "-C" || name == "--directory" {
			d, ok := pathWord(filepath.Join(dir, unquote(val)))
			if !ok && filepath.Clean(filepath.Join(dir, unquote(val))) != "." {
				return nil
			}
			dir = d
			continue
		}
		files = append(files, val)
	}
	if files == nil {
		files = Makefiles
	}
	var out []string
	for _, f := range files {
		if p, ok := pathWord(filepath.Join(dir, unquote(f))); ok {
			out = append(out, p)
		}
	}
	return out
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && !strings.ContainsAny(name, "/-.$\"'")
}

func unquote(w string) string { return strings.NewReplacer(`"`, "", `'`, "").Replace(w) }

func pathWord(w string) (string, bool) {
	w = unquote(w)
	for _, v := range sideDirVars {
		w = strings.TrimPrefix(w, v)
	}
	switch {
	case w == "", strings.HasPrefix(w, "-"), strings.HasPrefix(w, "/"), strings.HasPrefix(w, "~"),
		strings.ContainsAny(w, "$*?[{\\=<>"):
		return "", false
	}
	w = filepath.Clean(w)
	if w == "." || w == ".." || strings.HasPrefix(w, "../") {
		return "", false
	}
	return w, true
}
