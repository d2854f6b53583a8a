// Command pkgtable prints the size of every Go package of a source tree as a
// Markdown table: non-test files, their lines, function and method
// declarations, and the median and 90th percentile of the functions'
// lengths in lines (from the func keyword to the closing brace). Function
// literals count towards their enclosing declaration. Test files, testdata,
// vendor and hidden directories are left out.
//
//	go run ./bench/pkgtable            # this tree
//	go run ./bench/pkgtable -root DIR  # another checkout, e.g. one made by git archive
//
// Percentiles are nearest-rank: the p-th percentile of n sorted lengths is
// the ⌈p·n⌉-th.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// pkg is the size of one package (one directory).
type pkg struct {
	files, lines int
	funcs        []int // the length of every function declaration
}

func main() {
	root := flag.String("root", ".", "the source tree to measure")
	flag.Parse()
	pkgs, err := measure(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pkgtable:", err)
		os.Exit(1)
	}
	write(os.Stdout, pkgs)
}

// measure parses every non-test .go file below root, by directory.
func measure(root string) (map[string]*pkg, error) {
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		p := pkgs[filepath.ToSlash(rel)]
		if p == nil {
			p = &pkg{}
			pkgs[filepath.ToSlash(rel)] = p
		}
		return p.add(fset, path)
	})
	return pkgs, err
}

func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// add counts one file's lines and its function declarations' lengths.
func (p *pkg) add(fset *token.FileSet, path string) error {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	p.files++
	p.lines += fset.File(f.Pos()).LineCount()
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
			p.funcs = append(p.funcs, fset.Position(fn.End()).Line-fset.Position(fn.Pos()).Line+1)
		}
	}
	return nil
}

// write prints the table, packages in path order, then the total.
func write(w io.Writer, pkgs map[string]*pkg) {
	fmt.Fprintln(w, "| package | files | lines | functions | median func | p90 func |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	total := &pkg{}
	names := make([]string, 0, len(pkgs))
	for name := range pkgs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := pkgs[name]
		row(w, name, p)
		total.files += p.files
		total.lines += p.lines
		total.funcs = append(total.funcs, p.funcs...)
	}
	row(w, "**total**", total)
}

func row(w io.Writer, name string, p *pkg) {
	fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s |\n", name, p.files, p.lines, len(p.funcs),
		percentile(p.funcs, 0.5), percentile(p.funcs, 0.9))
}

// percentile is the nearest-rank percentile of the lengths, or "–".
func percentile(lengths []int, q float64) string {
	if len(lengths) == 0 {
		return "–"
	}
	s := slices.Sorted(slices.Values(lengths))
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return fmt.Sprint(s[max(i, 0)])
}
