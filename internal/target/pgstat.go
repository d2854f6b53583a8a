package target

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// pgStatQuery reads, in one statement, every statement pg_stat_statements
// keeps for the database :'db' (summed over the users and query ids that
// share its text), the sessions pg_stat_database counted for it, and
// whether it exists.
const pgStatQuery = `SELECT json_build_object(
 'found', (SELECT count(*) FROM pg_database WHERE datname = :'db'),
 'sessions', (SELECT sessions FROM pg_stat_database WHERE datname = :'db'),
 'statements', coalesce((SELECT json_agg(s) FROM (
   SELECT sum(calls) AS calls, sum(rows) AS rows,
          sum(shared_blks_hit + shared_blks_read) AS blocks, sum(shared_blks_read) AS blocks_read,
          left(query, 2000) AS query
   FROM pg_stat_statements
   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = :'db') AND queryid IS NOT NULL
   GROUP BY query) s), '[]'))`

// pgStatQueryEnv carries the query to the shell, which pipes it to psql:
// psql interpolates :'db' only in a script it reads, not in -c.
const pgStatQueryEnv = "TAILGATE_PG_QUERY"

// maxStatements bounds the statements kept per source and window, the
// most called first: a report lists a handful, and a result file should
// not carry a server's whole statement cache.
const maxStatements = 500

// pgStatReading is what one read of a pg_stat_statements source returned.
type pgStatReading struct {
	Found      int      `json:"found"`
	Sessions   *float64 `json:"sessions"`
	Statements []struct {
		Calls      float64 `json:"calls"`
		Rows       float64 `json:"rows"`
		Blocks     float64 `json:"blocks"`
		BlocksRead float64 `json:"blocks_read"`
		Query      string  `json:"query"`
	} `json:"statements"`
}

// pgStatCommand is the psql command that reads source p; the database
// name (validated: letters, digits, _ and ${TAILGATE_SIDE…}) is expanded
// by the shell.
func pgStatCommand(p *config.PGStatSource) *config.Command {
	connect := p.Connect
	if connect == "" {
		connect = "dbname=postgres"
	}
	return &config.Command{Args: []string{"sh", "-c",
		`printf '%s\n' "$` + pgStatQueryEnv + `" | psql -X -q -At -v ON_ERROR_STOP=1 -d '` + connect + `' -v db="` + p.Database + `"`}}
}

// readPGStat reads a pg_stat_statements source.
func (c Counters) readPGStat(ctx context.Context, s config.CounterSource) (map[string]float64, map[string]result.Statement, error) {
	out, saw, err := runCommand(ctx, pgStatCommand(s.PGStatStatements), c.Children.With(pgStatQueryEnv+"="+pgStatQuery))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", saw, err)
	}
	var r pgStatReading
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, nil, fmt.Errorf("psql printed %q, not the JSON tailgate asked for: %v", snippet(out), err)
	}
	if r.Found == 0 {
		return nil, nil, fmt.Errorf("the server has no database named as pg_stat_statements.database %q", s.PGStatStatements.Database)
	}
	values, stmts := r.figures(s.Name)
	return values, stmts, nil
}

// figures are a reading's counters (config.PGStatCounters, summed over the
// database's statements; sessions only where the server counts them,
// PostgreSQL 14 and later) and each statement's cumulative figures, by
// Key: those whose texts are equal through result.NormalQuery summed.
func (r pgStatReading) figures(source string) (map[string]float64, map[string]result.Statement) {
	values := map[string]float64{"calls": 0, "rows": 0, "blocks": 0, "blocks_read": 0}
	stmts := map[string]result.Statement{}
	for _, st := range r.Statements {
		values["calls"] += st.Calls
		values["rows"] += st.Rows
		values["blocks"] += st.Blocks
		values["blocks_read"] += st.BlocksRead
		s := result.Statement{Source: source, Query: result.NormalQuery(st.Query)}
		sum := stmts[s.Key()]
		s.Calls, s.Rows, s.Blocks = sum.Calls+st.Calls, sum.Rows+st.Rows, sum.Blocks+st.Blocks
		stmts[s.Key()] = s
	}
	if r.Sessions != nil {
		values["sessions"] = *r.Sessions
	}
	return values, stmts
}

// StatementGrowth is what each statement did between two readings: its
// growth, from zero for one first seen at the end (pg_stat_statements adds
// a statement when it first runs). A statement whose calls went down (the
// statistics were reset, or the entry evicted and added again) is left out;
// so are those that did nothing, and beyond maxStatements per source the
// least called. Sources not read at both ends have none.
func StatementGrowth(before, after CounterSnapshot) []result.Statement {
	bySource := map[string][]result.Statement{}
	for _, k := range slices.Sorted(maps.Keys(after.Statements)) {
		a := after.Statements[k]
		if !before.read[a.Source] {
			continue
		}
		b := before.Statements[k]
		g := result.Statement{Source: a.Source, Query: a.Query, Calls: a.Calls - b.Calls, Rows: a.Rows - b.Rows, Blocks: a.Blocks - b.Blocks}
		if g.Calls < 0 || g.Rows < 0 || g.Blocks < 0 || (g.Calls == 0 && g.Rows == 0 && g.Blocks == 0) {
			continue
		}
		bySource[a.Source] = append(bySource[a.Source], g)
	}
	var out []result.Statement
	for _, src := range slices.Sorted(maps.Keys(bySource)) {
		list := bySource[src]
		slices.SortStableFunc(list, func(x, y result.Statement) int { return cmp.Compare(y.Calls, x.Calls) })
		out = append(out, list[:min(len(list), maxStatements)]...)
	}
	return result.SumStatements(out)
}
