package target

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// sampleTarget runs a target, samples it for window, and returns what was seen.
func sampleTarget(t *testing.T, script string, window time.Duration) (cpu float64, rss int64) {
	t.Helper()
	p, err := Start(context.Background(), okServer(t), shellTarget(script), nil)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Stop()
	time.Sleep(50 * time.Millisecond) // let the shell fork its children
	s := StartSampler(p.PID(), 50*time.Millisecond)
	time.Sleep(window)
	res := s.Stop()
	if err := s.Err(); err != nil {
		t.Fatalf("sampler: %v", err)
	}
	return res.CPUSeconds, res.PeakRSSBytes
}

func TestSamplerSeesCPUOfTheWholeTree(t *testing.T) {
	// the busy loop runs in a child of the target's shell, not in the root
	busyCPU, busyRSS := sampleTarget(t, `sh -c 'while :; do :; done' & wait`, time.Second)
	idleCPU, idleRSS := sampleTarget(t, `sleep 30 & wait`, time.Second)
	// a busy loop gets far more than 0.05 s of CPU in 1 s even on a 2-core
	// machine shared with other test runs; sleeping processes get almost none
	if busyCPU < 0.05 {
		t.Errorf("busy tree used %.3f s CPU in 1 s, want ≥ 0.05 s", busyCPU)
	}
	if idleCPU > 0.02 {
		t.Errorf("idle tree used %.3f s CPU in 1 s, want ≤ 0.02 s", idleCPU)
	}
	if busyRSS <= 0 || idleRSS <= 0 {
		t.Errorf("peak RSS busy %d, idle %d bytes; want > 0", busyRSS, idleRSS)
	}
}

func TestSamplerCountsShortLivedChildren(t *testing.T) {
	// each child burns CPU and exits; the shell reaps them (cutime)
	script := `while :; do sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'; done`
	cpu, _ := sampleTarget(t, script, time.Second)
	if cpu < 0.05 {
		t.Errorf("tree of short-lived busy children used %.3f s CPU in 1 s, want ≥ 0.05 s", cpu)
	}
}

func TestSamplerOfAMissingProcess(t *testing.T) {
	s := StartSampler(1<<22+1, 10*time.Millisecond) // above any pid_max
	res := s.Stop()
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "not running") {
		t.Fatalf("sampler of a missing pid: err %v, want 'not running'", s.Err())
	}
	if res.CPUSeconds != 0 || res.PeakRSSBytes != 0 {
		t.Fatalf("sampler of a missing pid = %+v, want zero", res)
	}
	s.Stop() // a second Stop is harmless
}

func TestParseStat(t *testing.T) {
	line := "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 7 3 20 0 1 0 98765 12345678 321 18446744073709551615"
	st, err := parseStat(4242, line)
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{PID: 4242, State: 'S', PPID: 1, PGRP: 4242, CPUTicks: 150 + 50 + 7 + 3, ChildTicks: 7 + 3, StartTime: 98765, RSSPages: 321}
	if st != want {
		t.Fatalf("parseStat = %+v\nwant %+v", st, want)
	}
	if _, err := parseStat(1, "1 (x) S 0"); err == nil {
		t.Fatal("parseStat accepted a short line")
	}
}

func TestPIDFromFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := dir + "/" + name
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	if pid, err := PIDFromFile(write("ok", " "+itoa(os.Getpid())+"\n")); err != nil || pid != os.Getpid() {
		t.Fatalf("PIDFromFile = %d, %v; want %d", pid, err, os.Getpid())
	}
	cases := map[string]string{
		write("junk", "not-a-pid"): `holds "not-a-pid", want a process id`,
		write("neg", "-5"):         "want a process id",
		write("gone", "4194305"):   "not running",
		dir + "/missing":           "reading the target pid file",
	}
	for path, want := range cases {
		if _, err := PIDFromFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("PIDFromFile(%s) = %v, want an error containing %q", path, err, want)
		}
	}
}

func TestThreadNanosCountsThisProcess(t *testing.T) {
	before, ok := threadNanos(os.Getpid())
	if !ok {
		t.Skip("no /proc/<pid>/task/*/schedstat on this kernel")
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) { // burn ~50 ms of CPU
		x++
	}
	after, _ := threadNanos(os.Getpid())
	if d := time.Duration(after - before); d < 20*time.Millisecond || d > 5*time.Second {
		t.Errorf("50 ms of spinning counted as %v (x=%d)", d, x)
	}
}
