// Package demo owns the embedded sample service that `tailgate demo` and the
// tests run against: an in-memory complaints service modelled on the field
// reports (create → assign → resolve → search), with a fixed 3-complaint
// dataset, a search whose cost grows with the stored data, an optional async
// assign that a resolve can overtake, a knob that adds CPU work per request
// to simulate a regression, and, on request, bearer-token logins of a fixed
// list of users that the complaint endpoints then require.
package demo

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultAsyncDelay is how long an async assign takes to commit.
const DefaultAsyncDelay = 50 * time.Millisecond

// searchLimit caps the items a search returns.
const searchLimit = 10

// Options configure the service.
type Options struct {
	// Slowdown adds work per request: 0.3 makes every request do 30 % more
	// CPU work than the base.
	Slowdown float64
	// Async makes assign answer 202 ACCEPTED and commit AsyncDelay later.
	Async      bool
	AsyncDelay time.Duration // default DefaultAsyncDelay
	// Work is the base CPU work per request in hash rounds (default DefaultWork).
	Work int
	// Auth makes the complaint endpoints require a bearer token, which
	// POST /login gives a demo user (UserName) with Password.
	Auth     bool
	Password string
	// Log receives a line per login (user names only); nil: none.
	Log io.Writer
}

// Counters are what the service has done since it started, for tests and
// for GET /stats.
type Counters struct {
	Requests  int64 `json:"requests"`   // requests handled
	WorkUnits int64 `json:"work_units"` // hash rounds burnt
	Scanned   int64 `json:"scanned"`    // complaints examined by searches
	Pending   int64 `json:"pending"`    // async commits not yet applied
}

// Service is the complaints service; it is an http.Handler and safe for
// concurrent use.
type Service struct {
	opt      Options
	rounds   int
	store    *store
	sessions *sessions
	mux      *http.ServeMux

	requests  atomic.Int64
	workUnits atomic.Int64
	pending   atomic.Int64
	sink      atomic.Uint32 // keeps the burnt work observable

	timersMu sync.Mutex
	timers   map[*time.Timer]struct{}
}

// New returns a service holding the fixed dataset.
func New(opt Options) *Service {
	if opt.AsyncDelay <= 0 {
		opt.AsyncDelay = DefaultAsyncDelay
	}
	opt.Slowdown = max(opt.Slowdown, 0)
	s := &Service{
		opt:      opt,
		rounds:   roundsPerRequest(opt),
		store:    newStore(),
		sessions: newSessions(opt.Log),
		timers:   map[*time.Timer]struct{}{},
	}
	s.mux = s.routes()
	return s
}

// ServeHTTP does the fixed per-request work, then routes the request.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.workUnits.Add(int64(s.rounds))
	s.sink.Add(uint32(burn(s.rounds)))
	s.mux.ServeHTTP(w, r)
}

// Counters returns a snapshot of the service's counters.
func (s *Service) Counters() Counters {
	return Counters{Requests: s.requests.Load(), WorkUnits: s.workUnits.Load(), Scanned: s.store.scannedTotal(), Pending: s.pending.Load()}
}

// RoundsPerRequest is the CPU work every request does, in hash rounds.
func (s *Service) RoundsPerRequest() int { return s.rounds }

// Close cancels async commits that have not run yet.
func (s *Service) Close() {
	s.timersMu.Lock()
	defer s.timersMu.Unlock()
	for t := range s.timers {
		if t.Stop() {
			s.pending.Add(-1)
		}
		delete(s.timers, t)
	}
}

// commitLater applies an accepted assignment after the async delay.
func (s *Service) commitLater(id, assignee string, gen int) {
	s.pending.Add(1)
	s.timersMu.Lock()
	defer s.timersMu.Unlock()
	var t *time.Timer
	t = time.AfterFunc(s.opt.AsyncDelay, func() {
		s.sink.Add(uint32(burn(s.rounds))) // the commit is work too
		s.store.assign(id, assignee, gen)  // a stale or resolved one is dropped
		s.pending.Add(-1)
		s.timersMu.Lock()
		delete(s.timers, t)
		s.timersMu.Unlock()
	})
	s.timers[t] = struct{}{}
}
