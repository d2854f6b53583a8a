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

// pgStatQuery reads, for database :'db', whether it exists, its sessions
// and every statement pg_stat_statements keeps (summed by text).
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

// pgStatQueryEnv carries the query to psql's stdin: psql interpolates :'db'
// only in a script it reads, not in -c.
const pgStatQueryEnv = "TAILGATE_PG_QUERY"

// maxStatements bounds the statements kept per source and window (the
// most called): a result file should not carry a server's whole cache.
const maxStatements = 500

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

func (c Counters) readPGStat(ctx context.Context, s config.CounterSource) (map[string]float64, map[string]result.Statement, error) {
	// psql reads the query; the shell expands the database name
	// (validated: letters, digits, _ and ${TAILGATE_SIDE…}).
	p := s.PGStatStatements
	psql := &config.Command{Args: []string{"sh", "-c", `printf '%s\n' "$` + pgStatQueryEnv + `" | psql -X -q -At -v ON_ERROR_STOP=1 -d '` +
		cmp.Or(p.Connect, "dbname=postgres") + `' -v db="` + p.Database + `"`}}
	out, saw, err := runCommand(ctx, psql, c.Children.With(pgStatQueryEnv+"="+pgStatQuery))
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

// figures are a reading's counters (config.PGStatCounters; sessions from
// PostgreSQL 14 on) and each statement's figures by Key, summed over
// texts equal through result.NormalQuery.
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

// StatementGrowth is each statement's growth between two readings (from
// zero for one first seen at the end). Left out: one that went down
// (reset or evicted), did nothing, or is beyond maxStatements per source;
// sources not read at both ends.
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
