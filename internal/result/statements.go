package result

import (
	"maps"
	"slices"
)

// Statement is what one normalised database statement did over a
// measured window (a counter source that reads pg_stat_statements): its
// growth in calls, rows and blocks touched. Query is the server's
// normalised text (constants replaced by $1, $2, …): untrusted, to be
// rendered inert.
type Statement struct {
	// Source is the counter source's name; ID the server's query id.
	Source string  `json:"source"`
	ID     string  `json:"id"`
	Query  string  `json:"query"`
	Calls  float64 `json:"calls"`
	Rows   float64 `json:"rows"`
	// Blocks are the shared buffer blocks it touched (hit or read).
	Blocks float64 `json:"blocks"`
}

// StatementKey names a statement across runs.
func (s Statement) Key() string { return s.Source + "." + s.ID }

// SumStatements adds the statements of several windows by Key, in Key
// order.
func SumStatements(lists ...[]Statement) []Statement {
	byKey := map[string]Statement{}
	for _, list := range lists {
		for _, s := range list {
			sum, ok := byKey[s.Key()]
			if !ok {
				byKey[s.Key()] = s
				continue
			}
			sum.Calls += s.Calls
			sum.Rows += s.Rows
			sum.Blocks += s.Blocks
			byKey[s.Key()] = sum
		}
	}
	if len(byKey) == 0 {
		return nil
	}
	out := make([]Statement, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, byKey[k])
	}
	return out
}
