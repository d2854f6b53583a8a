package seal

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// sideDirVars are how a command names its side's tree (TAILGATE_SIDE_DIR):
// a path after one of them is a path in the tree.
var sideDirVars = []string{"$TAILGATE_SIDE_DIR/", "${TAILGATE_SIDE_DIR}/"}

// redirection is a duplication of a descriptor (2>&1), whose & does not
// end a command.
var redirection = regexp.MustCompile(`[0-9]*[<>]&[0-9-]*`)

// interpreters run the script their first argument that is not an
// option names; a subcommand listed with one (k6 run) comes first.
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

// Runs are the relative paths of the files a command runs: the program
// of each of its simple commands (a list's first argument; in a shell
// string each command between ;, &&, ||, | and the like, after variable
// assignments and words such as exec), and the script an interpreter
// (sh, bash, python3, node, k6 run, …) is given, and the makefiles make
// reads (-f, else every name it looks for, in -C's directory). A file the command only reads or writes (cp service.conf
// out/delay) is the code's data, not the procedure. Words that are
// absolute, home-relative, outside the directory (..), or hold anything
// the shell would expand are not paths this can know.
//
// This is the rule by which the procedure's files come from the base
// commit (with benchmark_from: base): a file of the base commit's tree
// that a command of the procedure runs is the base's for both sides.
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
	for _, w := range rest {
		switch {
		case w == "-c" || w == "-m" || w == "-e": // code or a module, not a file
			return out
		case strings.HasPrefix(w, "-"):
			continue
		}
		if p, ok := pathWord(w); ok {
			out = append(out, p)
		}
		return out
	}
	return out
}

// makeRuns are the makefiles of make's arguments args: those -f names,
// else every name make looks for; in -C's directory. Nil where that
// directory is not one this can know.
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
