package load

import (
	"fmt"
	"sync"

	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// setupParallel is how many workers run their setup steps at once: enough
// to keep a login endpoint busy, without a herd of hundreds of logins in
// the same instant (which would measure the login, not prepare the load).
const setupParallel = 16

// SetupError is a setup step that failed: the run cannot measure what it
// was to be set up for. Its text names the stage, the step, the virtual
// user, the request and what came back, secrets masked.
type SetupError struct {
	Stage scenario.Stage
	VU    int // 1-based, in SetupVU; 0 in SetupRun
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

// setup runs the plan's setup steps before the load clock starts, so
// that none of them is measured: the run's once (on the first worker,
// which hands the values they saved to every other), then each worker's
// own, setupParallel at a time. A worker keeps the client (and its
// connection) its setup used. The first failure is returned; setups not
// yet started are then not started.
func (e *engine) setup(workers []*worker) error {
	cache := e.opt.Setup
	if e.plan.HasSetup(scenario.SetupRun) {
		kept, ok := cache.get(-1)
		if !ok {
			first := workers[0]
			if err := first.runSetup(scenario.SetupRun); err != nil {
				return err
			}
			kept = first.exec.Kept()
			cache.put(-1, kept)
		}
		for _, w := range workers {
			w.exec.Keep(kept)
		}
	}
	if !e.plan.HasSetup(scenario.SetupVU) {
		return nil
	}
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return first != nil }
	slots := make(chan struct{}, setupParallel)
	for _, w := range workers {
		slots <- struct{}{}
		if failed() || e.hard.Err() != nil {
			<-slots
			break
		}
		if kept, ok := cache.get(w.id); ok {
			w.exec.Keep(kept)
			<-slots
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := w.runSetup(scenario.SetupVU); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return
			}
			cache.put(w.id, w.exec.Kept())
		})
	}
	wg.Wait()
	return first
}

// runSetup runs the setup steps of stage st on this worker's client and
// keeps the values they save for its iterations.
func (w *worker) runSetup(st scenario.Stage) error {
	w.begin(w.e.hard)
	x := w.exec
	x.BeginSetup(st)
	for i := 0; i < x.Steps(); i++ {
		if err := w.setupStep(st, i); err != nil {
			return err
		}
	}
	x.EndSetup()
	return nil
}

func (w *worker) setupStep(st scenario.Stage, i int) error {
	x := w.exec
	fail := func(what string) error {
		vu := 0
		if st == scenario.SetupVU {
			vu = w.id + 1
		}
		return &SetupError{Stage: st, VU: vu, Step: x.StepName(i), What: x.Mask(what)}
	}
	req, err := x.Request(i)
	if err != nil {
		return fail(err.Error())
	}
	failure, _, err := w.exchange(req, i)
	if err == nil && failure == nil {
		return nil
	}
	return fail(x.Describe(i, failure, err))
}

// SetupCache keeps what setup steps left across the runs given it (the
// values they saved and the cookies their responses set): the run's setup
// (key −1) and each worker's (its 0-based id). The values are
// valid for the target process they were made on: a caller keeps one
// cache per process (and phase), never across a restart. A nil cache
// keeps nothing.
type SetupCache struct {
	mu   sync.Mutex
	kept map[int]scenario.Session
}

func (c *SetupCache) get(id int) (scenario.Session, bool) {
	if c == nil {
		return scenario.Session{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.kept[id]
	return v, ok
}

func (c *SetupCache) put(id int, s scenario.Session) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil {
		c.kept = map[int]scenario.Session{}
	}
	c.kept[id] = s
}
