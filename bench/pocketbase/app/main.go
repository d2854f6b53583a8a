// Command pbbench is PocketBase v0.36.8, embedded as a library, set up as a
// service under test for tailgate's benchmarks: a "complaints" collection
// that only signed-in users may read or write, a "users" auth collection with
// a fixed set of users, a fixed seed set of complaints, a dataset reset that
// restores that set, an in-flight count for the drain gate, and a regression
// injected in the request path.
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
// PocketBase command works too). The first start on an empty data dir seeds
// it and needs PB_BENCH_USERS (a CSV file: a header "email,name", one user a
// line) and PB_BENCH_PASSWORD (every seeded user's password, ≥ 8 characters);
// later starts need neither.
package main

import (
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
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
	// usersCollection is PocketBase's own default auth collection.
	usersCollection = "users"
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
		// The dataset check: complaints and users as PocketBase counts them
		// (the record API would need a signed-in user, and verify runs
		// before the virtual users log in).
		se.Router.GET("/bench/count", func(e *core.RequestEvent) error {
			complaints, err := e.App.CountRecords(collectionName)
			if err != nil {
				return e.InternalServerError("count failed", err)
			}
			users, err := e.App.CountRecords(usersCollection)
			if err != nil {
				return e.InternalServerError("count failed", err)
			}
			return e.JSON(http.StatusOK, map[string]any{"complaints": complaints, "users": users})
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

func userID(i int) string { return fmt.Sprintf("user%011d", i) }

// Rules of the complaints collection: any signed-in user may list and read
// complaints (a help desk), a user files complaints in their own name, and
// only its reporter may change or delete one.
const (
	signedIn   = `@request.auth.id != ""`
	ownName    = `@request.auth.id != "" && @request.body.reporter = @request.auth.id`
	ownRecords = `@request.auth.id != "" && reporter = @request.auth.id`
)

// ensureDataset creates the users, the collection and the seed records once
// (the first start on an empty data dir) and keeps a copy of the seeded rows.
func ensureDataset(app core.App) error {
	if _, err := app.FindCollectionByNameOrId(collectionName); err == nil {
		return nil
	}
	users, password, err := seedUsersFromEnv()
	if err != nil {
		return err
	}
	return app.RunInTransaction(func(tx core.App) error {
		uc, err := tx.FindCollectionByNameOrId(usersCollection)
		if err != nil {
			return err
		}
		// No sign-up (the users are the fixed set) and no new-device
		// alert: it would send mail and write an auth origin per login.
		uc.CreateRule = nil
		uc.AuthAlert.Enabled = false
		if err := tx.Save(uc); err != nil {
			return fmt.Errorf("users collection: %w", err)
		}
		for i, u := range users {
			r := core.NewRecord(uc)
			r.Id = userID(i)
			r.SetEmail(u.email)
			r.SetVerified(true)
			r.Set("name", u.name)
			r.SetPassword(password)
			if err := tx.Save(r); err != nil {
				return fmt.Errorf("user %s: %w", u.email, err)
			}
		}
		c := core.NewBaseCollection(collectionName)
		c.ListRule, c.ViewRule = types.Pointer(signedIn), types.Pointer(signedIn)
		c.CreateRule = types.Pointer(ownName)
		c.UpdateRule, c.DeleteRule = types.Pointer(ownRecords), types.Pointer(ownRecords)
		c.Fields.Add(
			&core.TextField{Name: "title", Required: true, Max: 200},
			&core.TextField{Name: "body", Max: 5000},
			&core.SelectField{Name: "state", Required: true, MaxSelect: 1, Values: states},
			&core.TextField{Name: "assignee", Max: 100},
			&core.RelationField{Name: "reporter", Required: true, MaxSelect: 1, CollectionId: uc.Id},
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
			r.Set("reporter", userID(i%len(users)))
			if i%len(states) != 0 {
				r.Set("assignee", fmt.Sprintf("agent-%d", i%7))
			}
			if err := tx.Save(r); err != nil {
				return fmt.Errorf("seed %d: %w", i, err)
			}
		}
		_, err = tx.DB().NewQuery("CREATE TABLE " + goldenTable + " AS SELECT * FROM " + collectionName).Execute()
		return err
	})
}

type seedUser struct{ email, name string }

// seedUsersFromEnv reads the users to seed from the CSV file PB_BENCH_USERS
// (the benchmark's feed file, so that both name the same users) and their
// password from PB_BENCH_PASSWORD.
func seedUsersFromEnv() ([]seedUser, string, error) {
	path, password := os.Getenv("PB_BENCH_USERS"), os.Getenv("PB_BENCH_PASSWORD")
	if path == "" || len(password) < 8 {
		return nil, "", errors.New("an empty data dir is seeded from PB_BENCH_USERS (a CSV file of users) and PB_BENCH_PASSWORD (their password, ≥ 8 characters): set both")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 || len(rows[0]) < 2 || rows[0][0] != "email" || rows[0][1] != "name" {
		return nil, "", fmt.Errorf("%s: want a header line \"email,name\" and at least one user", path)
	}
	users := make([]seedUser, 0, len(rows)-1)
	for _, r := range rows[1:] {
		users = append(users, seedUser{email: r[0], name: r[1]})
	}
	return users, password, nil
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
