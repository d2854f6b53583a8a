package demo

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Complaint states.
const (
	StateOpen     = "OPEN"
	StateAccepted = "ACCEPTED" // async assign answered, not yet committed
	StateAssigned = "ASSIGNED"
	StateResolved = "RESOLVED"
)

// Complaint is one stored complaint.
type Complaint struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Body     string `json:"body"`
	State    string `json:"state"`
	Assignee string `json:"assignee,omitempty"`
}

// Errors of the lifecycle; the handler maps them to statuses.
var (
	errNotFound      = errors.New("not found")
	errInvalidAction = errors.New("INVALID ACTION")
)

// fixedDataset is what every run starts from: exactly 3 complaints, as in
// the field campaign.
var fixedDataset = []Complaint{
	{Title: "Streetlight out on Main St", Body: "The light at the corner has been dark for a week.", State: StateOpen},
	{Title: "Garbage not collected", Body: "Bins on Elm Road were skipped on Tuesday.", State: StateAssigned, Assignee: "sanitation"},
	{Title: "Pothole near the school", Body: "Deep pothole at the school gate.", State: StateResolved, Assignee: "roads"},
}

// store holds the complaints in memory. A search scans all of them, so its
// cost grows with the number stored, as a table without a fitting index does.
type store struct {
	mu    sync.Mutex
	items []*Complaint
	byID  map[string]*Complaint
	next  int
	// gen changes on every reset so that an async commit accepted before
	// the reset does not touch the new dataset.
	gen     int
	scanned int64 // complaints examined by searches, for tests and /stats
}

func newStore() *store {
	s := &store{}
	s.reset()
	return s
}

// reset restores the fixed dataset and returns the new generation.
func (s *store) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items, s.byID, s.next = nil, map[string]*Complaint{}, 0
	s.gen++
	for _, c := range fixedDataset {
		s.insertLocked(c)
	}
}

func (s *store) insertLocked(c Complaint) Complaint {
	s.next++
	c.ID = fmt.Sprintf("CMP-%04d", s.next)
	stored := c
	s.items = append(s.items, &stored)
	s.byID[c.ID] = &stored
	return stored
}

func (s *store) create(title, body string) Complaint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.insertLocked(Complaint{Title: title, Body: body, State: StateOpen})
}

func (s *store) get(id string) (Complaint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	if !ok {
		return Complaint{}, errNotFound
	}
	return *c, nil
}

func (s *store) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// checkAssignable reports whether id may be assigned, and the generation
// an async commit must match.
func (s *store) checkAssignable(id string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	if !ok {
		return 0, errNotFound
	}
	if c.State == StateResolved {
		return 0, errInvalidAction
	}
	return s.gen, nil
}

// assign commits an assignment; gen 0 means "the current generation".
// A commit from an older generation or for a resolved complaint is dropped.
func (s *store) assign(id, assignee string, gen int) (Complaint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != 0 && gen != s.gen {
		return Complaint{}, errNotFound
	}
	c, ok := s.byID[id]
	if !ok {
		return Complaint{}, errNotFound
	}
	if c.State == StateResolved {
		return Complaint{}, errInvalidAction
	}
	c.State, c.Assignee = StateAssigned, assignee
	return *c, nil
}

// resolve closes an assigned complaint; any other state is an invalid
// action, which is what a resolve that overtakes an async assign meets.
func (s *store) resolve(id string) (Complaint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	if !ok {
		return Complaint{}, errNotFound
	}
	if c.State != StateAssigned {
		return Complaint{}, errInvalidAction
	}
	c.State = StateResolved
	return *c, nil
}

// search scans every stored complaint: q matches an id exactly, or a title
// or body case-insensitively; state, when set, must match too. It returns
// the number of matches and at most limit of them.
func (s *store) search(q, state string, limit int) (int, []Complaint) {
	needle := strings.ToLower(q)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scanned += int64(len(s.items))
	count, out := 0, []Complaint{}
	for _, c := range s.items {
		if !matches(c, q, needle, state) {
			continue
		}
		count++
		if len(out) < limit {
			out = append(out, *c)
		}
	}
	return count, out
}

func matches(c *Complaint, q, needle, state string) bool {
	if state != "" && c.State != state {
		return false
	}
	if q == "" || c.ID == q {
		return true
	}
	// lower-casing each stored text on every scan is deliberate per-record work
	return strings.Contains(strings.ToLower(c.Title), needle) || strings.Contains(strings.ToLower(c.Body), needle)
}

func (s *store) scannedTotal() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scanned
}
