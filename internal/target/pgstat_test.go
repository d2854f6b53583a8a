package target

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
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
	if len(stmts) != 2 || lookup == nil || lookup.Calls != 23 || lookup.Rows != 23 || lookup.Source != "pg" {
		t.Fatalf("statements %+v; want the list and the lookup by id ($1) with 23 calls", stmts)
	}

	missing := Counters{Sources: []config.CounterSource{{Name: "pg", PGStatStatements: &config.PGStatSource{Database: "app_${TAILGATE_SIDE:-run}"}}},
		Children: Children{Environ: environ}} // no side: app_run, which does not exist
	snap := missing.Read(ctx)
	if len(snap.Values) != 0 || len(snap.Notes) != 1 || !strings.Contains(snap.Notes[0], `no database named as pg_stat_statements.database "app_${TAILGATE_SIDE:-run}"`) {
		t.Fatalf("missing database: values %v, notes %q; want no counter and a note naming it", snap.Values, snap.Notes)
	}
}

// Two sides' databases, each built apart from the same migrations as a
// side's template is, on a real PostgreSQL: the server gives each of their
// statements its own query id (the tables' oids differ), and a tracer's
// comment differs by side, yet each statement is one across the sides,
// with the same figures; the statement only the head runs is the one new.
func TestPGStatStatementsJoinSidesByText(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	pg.PSQL(t, "postgres", "CREATE EXTENSION pg_stat_statements")
	environ := append(os.Environ(), pg.Env()...)
	ctx := context.Background()
	growth := map[string][]result.Statement{}
	for _, side := range []string{"base", "head"} {
		db := "app_" + side
		pg.PSQL(t, "postgres", "CREATE DATABASE "+db)
		pg.PSQL(t, db, `CREATE TABLE app_user (id int PRIMARY KEY, name text);
CREATE TABLE article (id int PRIMARY KEY, author int REFERENCES app_user);
INSERT INTO app_user SELECT i, 'user ' || i FROM generate_series(1, 40) i;
INSERT INTO article SELECT i, 1 + i % 40 FROM generate_series(1, 500) i;`)
		c := Counters{Sources: []config.CounterSource{{Name: "pg", PGStatStatements: &config.PGStatSource{Database: "app_${TAILGATE_SIDE}"}}},
			Children: Children{Environ: environ}.With(SideEnv + "=" + side)}
		before := c.Read(ctx)
		page := "SELECT id, author FROM article ORDER BY id LIMIT 3;"
		for i := 1; i <= 3; i++ {
			page += fmt.Sprintf("SELECT /* request=%s-%d */ name FROM app_user WHERE id = %d;", side, i, i)
		}
		if side == "head" {
			page += "SELECT count(*) FROM article WHERE author = 7;"
		}
		pg.PSQL(t, db, page)
		growth[side] = StatementGrowth(before, c.Read(ctx))
	}
	ids := pg.PSQL(t, "postgres", `SELECT count(DISTINCT queryid) FROM pg_stat_statements WHERE query LIKE 'SELECT /* request=%'`)
	if ids != "2" {
		t.Fatalf("the lookup has %s query ids over the two databases; the test needs the two the server gives it", ids)
	}
	head := map[string]result.Statement{}
	for _, s := range growth["head"] {
		head[s.Key()] = s
	}
	for _, b := range growth["base"] {
		if h, ok := head[b.Key()]; !ok || h != b {
			t.Errorf("base's %+v is %+v in the head; want the same statement, the same figures", b, h)
		}
		delete(head, b.Key())
	}
	if len(growth["base"]) != 2 || len(head) != 1 || !strings.Contains(fmt.Sprint(head), "SELECT count(*) FROM article WHERE author = $1") {
		t.Fatalf("base %+v; head's own %+v; want the list and the lookup on both sides and the count in the head alone", growth["base"], head)
	}
	if l := growth["base"][1]; l.Query != "SELECT name FROM app_user WHERE id = $1" || l.Calls != 3 {
		t.Errorf("the lookup is %+v; want its text without the comment, 3 calls", l)
	}

	// Rows of one text that the server keeps apart (other users, other
	// query ids) are one statement, summed.
	var r pgStatReading
	json.Unmarshal([]byte(`{"statements": [{"calls": 2, "rows": 2, "query": "SELECT 1 /* a */"}, {"calls": 3, "rows": 1, "query": "SELECT  1"}]}`), &r)
	values, stmts := r.figures("pg")
	if s := stmts[result.Statement{Source: "pg", Query: "SELECT 1"}.Key()]; len(stmts) != 1 || s.Calls != 5 || s.Rows != 3 || values["calls"] != 5 {
		t.Errorf("statements %+v, counters %v; want one SELECT 1 of 5 calls and 3 rows", stmts, values)
	}
}

// A pool that reconnects, on a real PostgreSQL: 24 connections to
// app_head, each opened for one query and closed. The postmaster's pid
// file measures the server whole (ended backends through its cutime);
// a part that selects app_head's backends by command line sees only the
// backends a sample caught alive (here, sampled every 2 s, next to none)
// and now says what share of its server's CPU it had, the server's whole
// CPU beside it: the same figure as the pid file's.
func TestFootprintOfAPoolThatReconnects(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	pg.PSQL(t, "postgres", "CREATE DATABASE app_head")
	environ := append(os.Environ(), pg.Env()...)
	parts := []FootprintPart{
		{MeasurePart: config.MeasurePart{Name: "whole", PIDFile: pg.PIDFile()}},
		{MeasurePart: config.MeasurePart{Name: "side", Process: &config.ProcessMatch{CmdlineRE: regexp.MustCompile(`^postgres: \S+ app_head `), Cmdline: `^postgres: \S+ app_head `}}},
	}
	// One backend of app_head lives through the first sample, so the part
	// finds its processes and their server.
	held := exec.Command("psql", "-X", "-q", "-d", "app_head", "-c", "SELECT pg_sleep(30)")
	held.Env = environ
	if err := held.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { held.Process.Kill(); held.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(pg.PSQL(t, "postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname = 'app_head'"), "1") {
		if time.Now().After(deadline) {
			t.Fatal("the held connection did not show")
		}
		time.Sleep(50 * time.Millisecond)
	}
	f := OpenFootprint(parts, 2*time.Second)
	for range 24 {
		cmd := exec.Command("psql", "-X", "-q", "-d", "app_head", "-c", "SELECT count(*) FROM generate_series(1, 300000)")
		cmd.Env = environ
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
	}
	time.Sleep(300 * time.Millisecond) // the last backend ends and is reaped
	got, notes := f.Close()
	whole, side := got[0].Totals, got[1].Totals
	wholeCPU := whole[result.FigureUserCPU] + whole[result.FigureSystemCPU]
	sideCPU := side[result.FigureUserCPU] + side[result.FigureSystemCPU]
	server, ok := side[result.FigureServerCPU]
	t.Logf("whole server %.2f s (pid file), side's backends %.2f s, side's server %.2f s; notes %q", wholeCPU, sideCPU, server, notes)
	if !ok || wholeCPU < 0.1 || server < 0.9*wholeCPU-0.02 || server > 1.1*wholeCPU+0.02 {
		t.Fatalf("server CPU %.2f s (present %v) beside the pid file's %.2f s; want the same whole server, at least 0.1 s", server, ok, wholeCPU)
	}
	if sideCPU > 0.5*server {
		t.Errorf("the backends selected by command line had %.2f of %.2f s: they should miss the ended ones", sideCPU, server)
	}
	run := result.Run{Parts: got, Iterations: result.Iterations{Completed: 24, Counted: result.CountCompleted}}
	run.Summarize()
	share, ok := run.Metrics[result.PartKey("side", "cpu_attributed_pct")]
	if want := 100 * sideCPU / server; !ok || math.Abs(share-want) > 1e-9 {
		t.Errorf("share %v (present %v), want %v", share, ok, want)
	}
	if _, ok := run.Metrics[result.PartKey("whole", "cpu_attributed_pct")]; ok {
		t.Errorf("a part measured whole (pid file) has a share: %v", run.Metrics)
	}
}
