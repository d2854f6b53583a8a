package target

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A goroutine spinning on one core is seen: the machine's busy cores over
// the sample include at least most of that core, and never exceed the
// cores counted.
func TestSampleMachineCPUSeesABusyCore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/stat")
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; !stop.Load(); n++ {
		}
	}()
	m, err := SampleMachineCPU(context.Background(), 600*time.Millisecond)
	stop.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if m.Cores != runtime.NumCPU() {
		t.Errorf("cores %d, want %d (runtime.NumCPU)", m.Cores, runtime.NumCPU())
	}
	if m.Busy < 0.6 || m.Busy > float64(m.Cores)+0.05 {
		t.Errorf("busy %.2f of %d cores while one core spun, want ≥ 0.6 and ≤ %d", m.Busy, m.Cores, m.Cores)
	}
	if m.Over < 600*time.Millisecond {
		t.Errorf("sampled over %s, want ≥ 600ms", m.Over)
	}
}

// A context that ends stops the sample with its error.
func TestSampleMachineCPUStopsWithContext(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/stat")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := SampleMachineCPU(ctx, time.Minute); err == nil {
		t.Fatal("no error from a sample whose context ended")
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %s to stop", time.Since(start))
	}
}
