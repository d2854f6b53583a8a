package result

import (
	"maps"
	"slices"
	"strings"
)

// Statement is what one database statement did over a window (a counter
// source reading pg_stat_statements): its growth in calls, rows and shared
// blocks hit or read. Query is the server's text through NormalQuery:
// untrusted, to be rendered inert.
type Statement struct {
	Source string  `json:"source"` // the counter source
	Query  string  `json:"query"`
	Calls  float64 `json:"calls"`
	Rows   float64 `json:"rows"`
	Blocks float64 `json:"blocks"`
}

// Key names a statement across runs and sides: its source and its text.
// Not the server's query id, which hashes the tables' oids: two sides'
// databases built apart give one statement two ids.
func (s Statement) Key() string { return s.Source + "\x00" + s.Query }

// NormalQuery is a statement's text as sides compare it: comments dropped
// and white space folded to one space, outside quotes. The server keeps
// the text it saw first, so a comment an ORM or a tracer adds per request
// would otherwise make one statement two.
func NormalQuery(q string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(q); i++ {
		j := i + 1 // the end of the token at i
		switch c := q[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			space = true
			continue
		case strings.HasPrefix(q[i:], "--"):
			if j = strings.IndexByte(q[i:], '\n'); j < 0 {
				j = len(q) - i
			}
			i, space = i+j, true
			continue
		case strings.HasPrefix(q[i:], "/*"):
			if j = strings.Index(q[i+2:], "*/"); j < 0 {
				j = len(q) - i - 3
			}
			i, space = i+j+3, true
			continue
		case c == '\'' || c == '"':
			if j = strings.IndexByte(q[i+1:], c); j < 0 {
				j = len(q)
			} else {
				j += i + 2
			}
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q[i:j])
		i, space = j-1, false
	}
	return b.String()
}

// SumStatements adds the statements of several windows by Key, in Key
// order.
func SumStatements(lists ...[]Statement) []Statement {
	byKey := map[string]Statement{}
	for _, list := range lists {
		for _, s := range list {
			if sum, ok := byKey[s.Key()]; ok {
				s.Calls, s.Rows, s.Blocks = sum.Calls+s.Calls, sum.Rows+s.Rows, sum.Blocks+s.Blocks
			}
			byKey[s.Key()] = s
		}
	}
	return slices.SortedFunc(maps.Values(byKey), func(a, b Statement) int { return strings.Compare(a.Key(), b.Key()) })
}
