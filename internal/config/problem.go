package config

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/printable"
)

// Problem is one thing wrong with a config file, at the place it was found.
type Problem struct {
	File string
	Line int // 1-based; 0 when unknown
	Col  int // 1-based; 0 when unknown
	// Key is the dotted path of the key concerned, e.g. "load.rate" or
	// "scenarios[0].steps[2].path"; empty for the file as a whole.
	Key string
	Msg string
}

// String is "file:line:col: key: message", the parts that are unknown left out.
func (p Problem) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Col > 0 {
			s += ":" + strconv.Itoa(p.Col)
		}
	}
	s += ": "
	if _, _, bad := printable.Bad(p.Key); bad { // a key with a line break stays on its line
		s += strconv.Quote(p.Key) + ": "
	} else if p.Key != "" {
		s += p.Key + ": "
	}
	return s + p.Msg
}

// Error is every problem found in a config file, in file order.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

type position struct{ line, col int }

// spot is where a key path is: its key (where its section starts), its value.
type spot struct{ key, val position }

// collector gathers problems and remembers where every key path was read,
// so that validation can point at the right place.
type collector struct {
	file string
	// dir is the directory the paths the file names (feed.file,
	// target.tls.ca_file) are relative to; read reads them (nil: the
	// file system, readLimited).
	dir      string
	read     ReadFunc
	spots    map[string]spot // key path → where it is written
	problems []Problem
	flagged  map[string]bool // key paths that already have a problem
}

func newCollector(file string) *collector {
	return &collector{file: file, dir: filepath.Dir(file), spots: map[string]spot{}, flagged: map[string]bool{}}
}

func (c *collector) readFile(p string, max int64) ([]byte, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.dir, p)
	}
	if c.read != nil {
		return c.read(p, max)
	}
	return readLimited(p, max)
}

// given reports whether the file sets path (to something other than null).
func (c *collector) given(path string) bool { _, ok := c.spots[path]; return ok }

func (c *collector) addAt(path string, at position, format string, a ...any) {
	c.flagged[path] = true
	c.problems = append(c.problems, Problem{
		File: c.file, Line: at.line, Col: at.col, Key: path, Msg: fmt.Sprintf(format, a...),
	})
}

// note records a problem about the whole file; unlike addAt it silences none.
func (c *collector) note(at position, format string, a ...any) {
	c.problems = append(c.problems, Problem{File: c.file, Line: at.line, Col: at.col, Msg: fmt.Sprintf(format, a...)})
}

// add records a problem about path, at its value when the file sets it, else
// at the nearest enclosing key it sets; nothing when path or an enclosing one
// has a problem already (that is the cause, this a consequence). addKey
// points at the key itself (a bad name).
func (c *collector) add(path string, format string, a ...any) {
	c.addPointing(path, false, format, a...)
}
func (c *collector) addKey(path string, format string, a ...any) {
	c.addPointing(path, true, format, a...)
}

// addIf and addKeyIf are add and addKey when bad.
func (c *collector) addIf(bad bool, path string, format string, a ...any) {
	if bad {
		c.addPointing(path, false, format, a...)
	}
}
func (c *collector) addKeyIf(bad bool, path string, format string, a ...any) {
	if bad {
		c.addPointing(path, true, format, a...)
	}
}

func (c *collector) addPointing(path string, atKey bool, format string, a ...any) {
	at, found := position{}, false
	for p := path; ; p = parentPath(p) {
		if c.flagged[p] {
			return
		}
		if s, ok := c.spots[p]; ok && !found {
			at, found = s.key, true
			if p == path && !atKey {
				at = s.val
			}
		}
		if p == "" {
			break
		}
	}
	c.addAt(path, at, format, a...)
}

func (c *collector) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	ps := slices.Clone(c.problems)
	slices.SortStableFunc(ps, func(a, b Problem) int { return cmp.Or(a.Line-b.Line, a.Col-b.Col) })
	return &Error{Problems: ps}
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
