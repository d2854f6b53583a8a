package k6

import (
	"bytes"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/printable"
)

// pointView reads one sample line of k6 --out json in place, without
// encoding/json: a file of a million requests has thirteen million such
// lines, and decoding each into maps cost 20 s of CPU per GB. It takes
// exactly the layout k6 writes,
//
//	{"metric":M,"type":"Point","data":{"time":T,"value":V,"tags":{K:V,…}}}
//
// with no space, strings without escapes and valid UTF-8, and tags that
// are strings; any other line (a Metric line, the older key order, an
// escaped quote) is left to encoding/json, so both read every line alike
// (FuzzPointViewMatchesEncodingJSON).
type pointView struct {
	metric []byte
	time   time.Time
	value  float64
	tags   [][2][]byte
	// strs interns the tag values and metric names handed out: a run has
	// few distinct ones, and a string per sample and tag was most of the
	// garbage.
	strs importer.Interner
}

// read reads line into v; false when the line is not in the layout above.
// The slices in v are valid until line changes.
func (v *pointView) read(line []byte) bool {
	c := cursor{b: line}
	if !c.lit(`{"metric":`) {
		return false
	}
	if v.metric = c.str(); v.metric == nil || !c.lit(`,"type":"Point","data":{"time":`) {
		return false
	}
	start := c.i
	if c.str() == nil || v.time.UnmarshalJSON(line[start:c.i]) != nil || !c.lit(`,"value":`) {
		return false
	}
	var ok bool
	if v.value, ok = c.num(); !ok || !c.lit(`,"tags":{`) {
		return false
	}
	v.tags = v.tags[:0]
	for !c.lit(`}`) {
		if len(v.tags) > 0 && !c.lit(`,`) {
			return false
		}
		k := c.str()
		if k == nil || !c.lit(`:`) {
			return false
		}
		val := c.str()
		if val == nil {
			return false
		}
		v.tags = append(v.tags, [2][]byte{k, val})
	}
	return c.lit(`}}`) && c.i == len(line)
}

// tag is a tag's value, "" when the sample has no such tag. A key given
// twice has its last value, as encoding/json keeps it.
//
// A value longer than maxTag is cut to its first maxTag bytes (and then
// clipped as a name is): a tag only names, classes or shows a request, and
// a URL of a gigabyte must not be copied whole to be clipped.
func (v *pointView) tag(key string) string {
	for i := len(v.tags) - 1; i >= 0; i-- {
		if string(v.tags[i][0]) == key {
			if val := v.tags[i][1]; len(val) > maxTag {
				return importer.ClipName(string(val[:maxTag]))
			}
			return v.strs.String(v.tags[i][1])
		}
	}
	return ""
}

// maxTag is more than the bytes of printable.MaxName characters, so that a
// tag cut to it clips as the whole would.
const maxTag = 4 * (printable.MaxName + 1)

type cursor struct {
	b []byte
	i int
}

func (c *cursor) lit(s string) bool {
	if !bytes.HasPrefix(c.b[c.i:], []byte(s)) {
		return false
	}
	c.i += len(s)
	return true
}

// str consumes a JSON string without escapes or control characters and
// of valid UTF-8, and returns its content (non-nil); nil when there is
// none such.
func (c *cursor) str() []byte {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil
	}
	end := bytes.IndexByte(c.b[c.i+1:], '"')
	if end < 0 {
		return nil
	}
	s := c.b[c.i+1 : c.i+1+end]
	ascii := true
	for _, ch := range s {
		if ch < 0x20 || ch == '\\' {
			return nil
		}
		ascii = ascii && ch < utf8.RuneSelf
	}
	if !ascii && !utf8.Valid(s) {
		return nil
	}
	c.i += end + 2
	return s[:len(s):len(s)]
}

// num consumes a JSON number that fits a float64.
func (c *cursor) num() (float64, bool) {
	start, b := c.i, c.b
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	if err != nil {
		return 0, false
	}
	c.i = i
	return f, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
