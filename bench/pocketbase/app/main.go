// Command pbbench is PocketBase v0.36.8, embedded as a library, set up as a
// service under test for tailgate's benchmarks: a "complaints" collection with
// a fixed seed set, a dataset reset that restores that set, an in-flight
// count for the drain gate, and a regression injected in the request path.
//
// It is our own program around a service we did not write: PocketBase's
// router, record API, rule engine, validation, SQLite (modernc) and request
// log all run as in a stock `pocketbase serve`; only the routes under
// /bench/ and one middleware are ours.
//
// The injected regression is a middleware that every request passes. It
// chains SHA-256 over a 32-byte block burnRounds times: pure CPU, no
// allocation, not removable by the compiler. burnRounds is set at build
// time, so the clean build and the regressed builds are different binaries
// of the same source, as a regression would be:
//
//	go build -ldflags "-X main.burnRounds=600" -o pb-slow .
//
// Usage: pbbench serve --http 127.0.0.1:PORT --dir DATA_DIR (every other
// PocketBase command works too).
package main

import (
	"crypto/sha256"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// burnRounds is the injected work per request, as a string so that
// `-ldflags -X main.burnRounds=N` can set it; "0" is the clean build.
var burnRounds = "0"

// buildName labels the build in /bench/info (clean, slow10, slow30).
var buildName = "clean"

const (
	collectionName = "complaints"
	// seedCount records form the golden dataset; their ids are seedID(i).
	seedCount = 1000
	// goldenTable holds a copy of the seeded rows, which reset restores.
	goldenTable = "_bench_golden"
	// inflightPath is the drain probe: it is not counted in flight itself.
	inflightPath = "/bench/inflight"
)

var states = []string{"open", "assigned", "resolved"}

func main() {
	rounds, err := strconv.Atoi(burnRounds)
	if err != nil || rounds < 0 {
		log.Fatalf("burnRounds %q: want a non-negative integer (set with -ldflags -X main.burnRounds=N)", burnRounds)
	}
	// Not pocketbase.New(): that turns on dev mode (every SQL statement
	// printed) when the binary lies under the temp dir, as `go run` builds do.
	app := pocketbase.NewWithConfig(pocketbase.Config{DefaultDev: false})
	var inflight atomic.Int64
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		// No browser, no installer superuser: the benchmark needs none.
		se.InstallerFunc = nil
		if err := ensureDataset(se.App); err != nil {
			return fmt.Errorf("bench dataset: %w", err)
		}
		se.Router.BindFunc(func(e *core.RequestEvent) error {
			if e.Request.URL.Path != inflightPath {
				inflight.Add(1)
				defer inflight.Add(-1)
			}
			burn(rounds)
			return e.Next()
		})
		se.Router.POST("/bench/reset", func(e *core.RequestEvent) error {
			n, err := reset(e.App)
			if err != nil {
				return e.InternalServerError("reset failed", err)
			}
			return e.JSON(http.StatusOK, map[string]any{"deleted": n, "count": seedCount})
		})
		se.Router.GET(inflightPath, func(e *core.RequestEvent) error {
			return e.JSON(http.StatusOK, map[string]any{"inflight": inflight.Load()})
		})
		se.Router.GET("/bench/info", func(e *core.RequestEvent) error {
			return e.JSON(http.StatusOK, map[string]any{"build": buildName, "burn_rounds": rounds})
		})
		return se.Next()
	})
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}

// burnSink keeps the chained hash observable, so the loop is not dead code.
var burnSink atomic.Uint64

// burn does rounds SHA-256 compressions of a chained 32-byte block.
func burn(rounds int) {
	if rounds == 0 {
		return
	}
	var h [32]byte
	for range rounds {
		h = sha256.Sum256(h[:])
	}
	burnSink.Add(uint64(h[0]))
}

func seedID(i int) string { return fmt.Sprintf("seed%011d", i) }

// ensureDataset creates the collection and the seed records once (the
// first start on an empty data dir) and keeps a copy of the seeded rows.
func ensureDataset(app core.App) error {
	if _, err := app.FindCollectionByNameOrId(collectionName); err == nil {
		return nil
	}
	return app.RunInTransaction(func(tx core.App) error {
		c := core.NewBaseCollection(collectionName)
		// Open rules: tailgate has no per-user login phase today, so
		// every request is anonymous (see bench/pocketbase/README.md).
		open := types.Pointer("")
		c.ListRule, c.ViewRule, c.CreateRule, c.UpdateRule, c.DeleteRule = open, open, open, open, open
		c.Fields.Add(
			&core.TextField{Name: "title", Required: true, Max: 200},
			&core.TextField{Name: "body", Max: 5000},
			&core.SelectField{Name: "state", Required: true, MaxSelect: 1, Values: states},
			&core.TextField{Name: "assignee", Max: 100},
			&core.AutodateField{Name: "created", OnCreate: true},
			&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
		)
		c.AddIndex("idx_complaints_state_assignee", false, "state, assignee", "")
		if err := tx.Save(c); err != nil {
			return err
		}
		for i := range seedCount {
			r := core.NewRecord(c)
			r.Id = seedID(i)
			r.Set("title", fmt.Sprintf("seed complaint %d", i))
			r.Set("body", fmt.Sprintf("the printer on floor %d jams on every second page", i%12))
			r.Set("state", states[i%len(states)])
			if i%len(states) != 0 {
				r.Set("assignee", fmt.Sprintf("agent-%d", i%7))
			}
			if err := tx.Save(r); err != nil {
				return fmt.Errorf("seed %d: %w", i, err)
			}
		}
		_, err := tx.DB().NewQuery("CREATE TABLE " + goldenTable + " AS SELECT * FROM " + collectionName).Execute()
		return err
	})
}

// reset restores the golden dataset in one transaction: rows not in the
// seed set are deleted, seed rows that were changed or deleted are put
// back. It returns how many rows it deleted.
func reset(app core.App) (int64, error) {
	var deleted int64
	err := app.RunInTransaction(func(tx core.App) error {
		q := func(sql string) (int64, error) {
			res, err := tx.DB().NewQuery(sql).Execute()
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		}
		n, err := q("DELETE FROM " + collectionName + " WHERE id NOT IN (SELECT id FROM " + goldenTable + ")")
		if err != nil {
			return err
		}
		changed, err := q("DELETE FROM " + collectionName + " WHERE id IN (SELECT id FROM (SELECT * FROM " +
			collectionName + " EXCEPT SELECT * FROM " + goldenTable + "))")
		if err != nil {
			return err
		}
		if _, err := q("INSERT INTO " + collectionName + " SELECT * FROM " + goldenTable +
			" WHERE id NOT IN (SELECT id FROM " + collectionName + ")"); err != nil {
			return err
		}
		deleted = n + changed
		var count int
		if err := tx.DB().Select("count(*)").From(collectionName).Row(&count); err != nil {
			return err
		}
		if count != seedCount {
			return fmt.Errorf("%d records after reset, want %d", count, seedCount)
		}
		return nil
	})
	return deleted, err
}
