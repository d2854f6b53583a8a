package target

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target/pgtest"
)

// nPlusOne is a page of an article list with an N+1: one query for the
// list, then one author lookup per article (23), each statement counted
// by pg_stat_statements, on one connection.
const nPlusOne = `SELECT id, author FROM article ORDER BY id LIMIT 23;
` + `SELECT name FROM app_user WHERE id = 1;SELECT name FROM app_user WHERE id = 2;SELECT name FROM app_user WHERE id = 3;
SELECT name FROM app_user WHERE id = 4;SELECT name FROM app_user WHERE id = 5;SELECT name FROM app_user WHERE id = 6;
SELECT name FROM app_user WHERE id = 7;SELECT name FROM app_user WHERE id = 8;SELECT name FROM app_user WHERE id = 9;
SELECT name FROM app_user WHERE id = 10;SELECT name FROM app_user WHERE id = 11;SELECT name FROM app_user WHERE id = 12;
SELECT name FROM app_user WHERE id = 13;SELECT name FROM app_user WHERE id = 14;SELECT name FROM app_user WHERE id = 15;
SELECT name FROM app_user WHERE id = 16;SELECT name FROM app_user WHERE id = 17;SELECT name FROM app_user WHERE id = 18;
SELECT name FROM app_user WHERE id = 19;SELECT name FROM app_user WHERE id = 20;SELECT name FROM app_user WHERE id = 21;
SELECT name FROM app_user WHERE id = 22;SELECT name FROM app_user WHERE id = 23;
`

// A pg_stat_statements source on a real PostgreSQL counts the side's
// database exactly: the N+1's 24 statements, its sessions, and per
// statement the lookup that ran 23 times, by its normalised text; the
// other side's database and tailgate's own reads are not counted. A
// database that does not exist is a note, not a zero.
func TestPGStatStatementsCountsTheSidesDatabase(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	pg.PSQL(t, "postgres", "CREATE EXTENSION pg_stat_statements")
	for _, db := range []string{"app_head", "app_base"} {
		pg.PSQL(t, "postgres", "CREATE DATABASE "+db)
		pg.PSQL(t, db, `CREATE TABLE app_user (id int PRIMARY KEY, name text);
CREATE TABLE article (id int PRIMARY KEY, author int);
INSERT INTO app_user SELECT i, 'user ' || i FROM generate_series(1, 40) i;
INSERT INTO article SELECT i, 1 + i % 40 FROM generate_series(1, 500) i;`)
	}
	environ := append(os.Environ(), pg.Env()...)
	c := Counters{
		Sources:  []config.CounterSource{{Name: "pg", PGStatStatements: &config.PGStatSource{Database: "app_${TAILGATE_SIDE:-run}"}}},
		Children: Children{Environ: environ}.With(SideEnv + "=head"),
	}
	ctx := context.Background()
	before := c.Read(ctx)
	if len(before.Notes) > 0 {
		t.Fatalf("first read: %v", before.Notes)
	}
	for _, db := range []string{"app_head", "app_base"} { // the base's work must not count
		cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-c", nPlusOne)
		cmd.Env = environ
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
	}
	// A backend reports its session when it ends, just after psql does.
	var growth map[string]float64
	var after CounterSnapshot
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		after = c.Read(ctx)
		growth, _ = Growth(before, after)
		if growth["pg.sessions"] >= 1 || time.Now().After(deadline) {
			break
		}
	}
	if growth["pg.calls"] != 24 || growth["pg.rows"] != 46 || growth["pg.sessions"] != 1 || !(growth["pg.blocks"] > 0) {
		t.Fatalf("growth %v; want 24 calls, 46 rows (23 + 23), 1 session and some blocks on app_head alone", growth)
	}
	stmts := StatementGrowth(before, after)
	var lookup *result.Statement
	for i, s := range stmts {
		if strings.Contains(s.Query, "FROM app_user WHERE id = $1") {
			lookup = &stmts[i]
		}
	}
	if len(stmts) != 2 || lookup == nil || lookup.Calls != 23 || lookup.Rows != 23 || lookup.Source != "pg" || lookup.ID == "" {
		t.Fatalf("statements %+v; want the list and the lookup by id ($1) with 23 calls", stmts)
	}

	missing := Counters{Sources: []config.CounterSource{{Name: "pg", PGStatStatements: &config.PGStatSource{Database: "app_${TAILGATE_SIDE:-run}"}}},
		Children: Children{Environ: environ}} // no side: app_run, which does not exist
	snap := missing.Read(ctx)
	if len(snap.Values) != 0 || len(snap.Notes) != 1 || !strings.Contains(snap.Notes[0], `no database named as pg_stat_statements.database "app_${TAILGATE_SIDE:-run}"`) {
		t.Fatalf("missing database: values %v, notes %q; want no counter and a note naming it", snap.Values, snap.Notes)
	}
}
