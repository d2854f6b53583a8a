package load

import (
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
)

// A full-range HDR histogram takes ~190 KB, so workers buffer compact
// samples and flush them in batches into one shared set: one lock per
// batchSize samples, memory that grows with neither workers nor requests.
const batchSize = 512

type sampleKind uint8

const (
	kindRequest   sampleKind = iota // service time of one request of a step
	kindIteration                   // whole-iteration latency
	kindLag                         // schedule lag of an open-model iteration
)

type sample struct {
	d    time.Duration
	step int32
	kind sampleKind
}

type collector struct {
	mu        sync.Mutex
	steps     []*hist.Histogram // by step ID
	latency   *hist.Histogram   // every request's service time
	iteration *hist.Histogram
	lag       *hist.Histogram
}

func newCollector(steps int) *collector {
	c := &collector{latency: hist.New(), iteration: hist.New(), lag: hist.New()}
	for range steps {
		c.steps = append(c.steps, hist.New())
	}
	return c
}

func (c *collector) flush(batch []sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range batch {
		switch s.kind {
		case kindRequest:
			c.steps[s.step].Record(s.d)
			c.latency.Record(s.d)
		case kindIteration:
			c.iteration.Record(s.d)
		case kindLag:
			c.lag.Record(s.d)
		}
	}
}
