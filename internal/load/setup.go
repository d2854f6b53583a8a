package load

import (
	"fmt"
	"sync"

	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// setupParallel is how many workers run their setup steps at once: enough
// to keep a login endpoint busy, not a herd of hundreds.
const setupParallel = 16

// SetupError is a setup step that failed; its text names the stage, the
// step, the virtual user, the request and the answer, secrets masked.
type SetupError struct {
	Stage scenario.Stage
	VU    int // 1-based ({{vu}} + 1), in SetupVU; 0 in SetupRun
	Step  string
	What  string
}

func (e *SetupError) Error() string {
	who := ""
	if e.Stage == scenario.SetupVU {
		who = fmt.Sprintf(" (virtual user %d)", e.VU)
	}
	return fmt.Sprintf("%s step %q%s failed: %s", e.Stage, e.Step, who, e.What)
}

// setup runs the plan's setup steps before the load clock starts: the run's
// once, then each login's (a closed-model VU's own; an open-model identity's,
// Plan.SetupIdentity, shared by its workers), setupParallel at a time; the
// first failure is returned and stops the setups not yet started.
func (e *engine) setup(workers []*worker) error {
	cache := e.opt.Setup
	run, err := e.setupRun(workers)
	if err != nil || !e.plan.HasSetup(scenario.SetupVU) {
		return err
	}
	var wg sync.WaitGroup
	errc := make(chan error, 1) // the first failure
	slots := make(chan struct{}, setupParallel)
	leaders := map[int]*worker{}
	var followers []*worker
	for _, w := range workers {
		// a closed-model VU's own login, else its identity's (Plan.SetupIdentity),
		// so open and closed phases share logins
		if w.login = e.opt.FirstVU + w.id; e.opt.Model == Open {
			w.login = e.plan.SetupIdentity(w.login)
		}
		if l, ok := leaders[w.login]; ok {
			w.leader = l
			followers = append(followers, w)
			continue
		}
		leaders[w.login] = w
		slots <- struct{}{}
		if len(errc) > 0 || e.hard.Err() != nil {
			<-slots
			break
		}
		if kept, ok := cache.get(w.login); ok {
			w.exec.Keep(kept)
			w.exec.Keep(run) // the run's setup may be newer (SetupCache.Recheck)
			w.recheck = cache.reuse(w.login)
			<-slots
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := w.runSetup(scenario.SetupVU); err != nil {
				select {
				case errc <- err:
				default:
				}
				return
			}
			cache.put(w.login, w.exec.Kept())
		})
	}
	wg.Wait()
	if len(errc) > 0 {
		return <-errc
	}
	for _, w := range followers {
		w.exec.Keep(w.leader.exec.Kept())
		w.recheck = w.leader.recheck
	}
	return nil
}

// setupRun runs setup.run once (on worker 0) unless cached; every worker gets it.
func (e *engine) setupRun(workers []*worker) (scenario.Session, error) {
	if !e.plan.HasSetup(scenario.SetupRun) {
		return scenario.Session{}, nil
	}
	kept, ok := e.opt.Setup.get(-1)
	if !ok {
		first := workers[0]
		if err := first.runSetup(scenario.SetupRun); err != nil {
			return scenario.Session{}, err
		}
		kept = first.exec.Kept()
		e.opt.Setup.put(-1, kept)
	}
	for _, w := range workers {
		w.exec.Keep(kept)
	}
	return kept, nil
}

// renew checks a reused session by the first iteration it served: after
// a failed one the worker logs in again. A login that fails then ends the
// run, unless it was ending anyway (the session then stays unconfirmed,
// and SetupCache.Confirmed drops it).
func (w *worker) renew(out outcome) {
	if out == aborted {
		return
	}
	w.recheck = false
	if out == passed {
		w.e.opt.Setup.checked(w.login, false)
		return
	}
	if err := w.runSetup(scenario.SetupVU); err != nil {
		if w.e.hard.Err() == nil {
			w.e.abort(err)
		}
		return
	}
	w.e.opt.Setup.put(w.login, w.exec.Kept())
	w.e.opt.Setup.checked(w.login, true)
}

// runSetup runs stage st's setup steps and keeps what they save for iterations.
func (w *worker) runSetup(st scenario.Stage) error {
	w.begin(w.e.hard)
	x := w.exec
	x.BeginSetup(st)
	vu := 0
	if st == scenario.SetupVU {
		vu = w.e.opt.FirstVU + w.id + 1 // {{vu}} + 1: a shard's users follow the earlier shards'
	}
	for i := 0; i < x.Steps(); i++ {
		fail := func(what string) error {
			return &SetupError{Stage: st, VU: vu, Step: x.StepName(i), What: x.Mask(what)}
		}
		req, err := x.Request(i)
		if err != nil {
			return fail(err.Error())
		}
		failure, expired, err := w.exchange(req, i)
		if err != nil && (expired || transportSlot(err) == slotTimeout) { // name the limit the service did not answer within
			err = fmt.Errorf("no response within %v (load.request_timeout): %w", w.e.opt.RequestTimeout, err)
		}
		if err != nil || failure != nil {
			return fail(x.Describe(i, failure, err))
		}
	}
	x.EndSetup()
	return nil
}

// SetupCache keeps what setup steps left (values, cookies) across the runs
// given it, the run's (key −1) and each login's (worker.login): a login
// costs once per user, not per run or phase. After a reset or restart (which
// sessions may not survive) the caller calls Recheck. Nil keeps nothing.
type SetupCache struct {
	mu   sync.Mutex
	kept map[int]scenario.Session
	// checking: unconfirmed since Recheck; handed: reused since;
	// confirmed: whose first iteration since passed (or fresh logins).
	checking          bool
	handed, confirmed map[int]bool
	// renewed and rechecked count over the cache's life; reuse is off
	// once a recheck renewed every session it watched.
	renewed, rechecked       int
	lastRenewed, lastWatched int
	off                      bool
}

// Recheck marks the kept sessions as unconfirmed: the run's setup runs
// again, and a worker reusing its session watches its first iteration.
// Where the last recheck found every session ended, the sessions are
// forgotten and every worker logs in.
func (c *SetupCache) Recheck() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lastWatched > 0 && c.lastRenewed == c.lastWatched {
		c.off = true
	}
	if c.off {
		c.kept = nil
		return
	}
	delete(c.kept, -1)
	c.checking, c.handed, c.confirmed = true, map[int]bool{}, map[int]bool{}
	c.lastRenewed, c.lastWatched = 0, 0
}

// Confirmed ends a recheck: the sessions reused but not confirmed are
// forgotten, so that none reaches a measured window unchecked; those not
// reused since (another phase's users) stay, to be checked at next use.
func (c *SetupCache) Confirmed() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.checking {
		return
	}
	for id := range c.handed {
		if !c.confirmed[id] {
			delete(c.kept, id)
		}
	}
	c.checking, c.handed, c.confirmed = false, nil, nil
}

// Renewed counts the reused sessions logged in again, and those watched.
func (c *SetupCache) Renewed() (renewed, watched int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renewed, c.rechecked
}

// reuse reports whether login id's session, handed out now, awaits its check.
func (c *SetupCache) reuse(id int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.checking || c.confirmed[id] {
		return false
	}
	c.handed[id] = true
	return true
}

func (c *SetupCache) checked(id int, renewed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rechecked++
	c.lastWatched++
	if renewed {
		c.renewed++
		c.lastRenewed++
	}
	if c.confirmed != nil {
		c.confirmed[id] = true
	}
}

func (c *SetupCache) get(id int) (scenario.Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.kept[id]
	return v, ok
}

func (c *SetupCache) put(id int, s scenario.Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil {
		c.kept = map[int]scenario.Session{}
	}
	c.kept[id] = s
	if c.confirmed != nil {
		c.confirmed[id] = true // a fresh login needs no check
	}
}
