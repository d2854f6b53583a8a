package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepWaits(t *testing.T) {
	t.Parallel()
	start := time.Now()
	if err := Sleep(t.Context(), 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Errorf("Sleep returned after %v, want at least 20ms", waited)
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	err := Sleep(ctx, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Errorf("Sleep outlasted its context by %v", waited)
	}
}
