package target

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// sampleTarget runs a target (script, in which $SERVE runs the HTTP
// server), samples it for window, and returns what was seen.
func sampleTarget(t *testing.T, script string, window time.Duration) (cpu float64, rss int64) {
	t.Helper()
	return sampleTargetUntil(t, script, func() bool { return true }, window)
}

// sampleTargetUntil samples for at least window and then until done
// reports true (at most 20 s): a target starved by a busy machine gets
// the time it needs.
func sampleTargetUntil(t *testing.T, script string, done func() bool, window time.Duration) (cpu float64, rss int64) {
	t.Helper()
	tgt, url := serverTarget(t, script)
	p, err := Start(context.Background(), url, tgt, StartOptions{Children: supervised(t)})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Stop()
	time.Sleep(50 * time.Millisecond) // let the shell fork its children
	s := StartSampler(p.PID(), 50*time.Millisecond)
	time.Sleep(window)
	for end := time.Now().Add(20 * time.Second); !done() && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	res, err := s.Stop()
	if res == nil {
		t.Fatalf("sampler: %v", err)
	}
	return res.CPUSeconds, res.PeakRSSBytes
}

func TestSamplerSeesCPUOfTheWholeTree(t *testing.T) {
	// the busy loop runs in a child of the target's shell, not in the root
	t.Parallel()
	// The window lasts until the loop has made 10 marks after the first
	// second (each 20000 shell steps, well over 10 ms of CPU), so that a
	// machine busy with other work cannot starve it of what it counts.
	marks := t.TempDir() + "/marks"
	busy := `sh -c 'i=0; while :; do i=$((i+1)); [ $((i % 20000)) = 0 ] && echo >> ` + marks + `; done' & $SERVE`
	busyCPU, busyRSS := sampleTargetUntil(t, busy, linesAdded(marks, 10), time.Second)
	idleCPU, idleRSS := sampleTarget(t, `sleep 30 & $SERVE`, time.Second)
	// sleeping processes get almost no CPU
	if busyCPU < 0.05 {
		t.Errorf("busy tree used %.3f s CPU while its loop made 10 marks, want ≥ 0.05 s", busyCPU)
	}
	if idleCPU > 0.02 {
		t.Errorf("idle tree used %.3f s CPU in 1 s, want ≤ 0.02 s", idleCPU)
	}
	if busyRSS <= 0 || idleRSS <= 0 {
		t.Errorf("peak RSS busy %d, idle %d bytes; want > 0", busyRSS, idleRSS)
	}
}

func TestSamplerCountsShortLivedChildren(t *testing.T) {
	// each child burns CPU and exits; the shell reaps them (cutime). The
	// window lasts until 5 children have ended after the first second, so
	// that a machine busy with other work cannot starve it of what it
	// counts: a 20000-step shell loop takes well over 10 ms of CPU.
	t.Parallel()
	ended := t.TempDir() + "/ended"
	script := `$SERVE & while :; do sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'; echo >> ` + ended + `; done`
	cpu, _ := sampleTargetUntil(t, script, linesAdded(ended, 5), time.Second)
	if cpu < 0.05 {
		t.Errorf("tree of short-lived busy children used %.3f s CPU while 5 of them ran, want ≥ 0.05 s", cpu)
	}
}

// linesAdded is a condition that holds once the file has n more lines
// than when it was first asked.
func linesAdded(file string, n int) func() bool {
	before := -1
	return func() bool {
		b, _ := os.ReadFile(file)
		got := strings.Count(string(b), "\n")
		if before < 0 {
			before = got
		}
		return got >= before+n
	}
}

func TestSamplerOfAMissingProcess(t *testing.T) {
	t.Parallel()
	s := StartSampler(1<<22+1, 10*time.Millisecond) // above any pid_max
	res, err := s.Stop()
	if err == nil || !strings.Contains(err.Error(), "not running") {
		t.Fatalf("sampler of a missing pid: err %v, want 'not running'", err)
	}
	if res != nil {
		t.Fatalf("sampler of a missing pid = %+v, want nothing (absent, not zero)", res)
	}
	s.Stop() // a second Stop is harmless
}

func TestSamplerOfAProcessThatEndsInTheWindow(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	s := StartSampler(cmd.Process.Pid, 20*time.Millisecond)
	time.Sleep(time.Second)
	res, err := s.Stop()
	if res != nil || err == nil || !strings.Contains(err.Error(), "ended during the measure window") {
		t.Fatalf("sampler of a process that ended = %+v, %v; want nothing and why", res, err)
	}
}

func TestSamplerOfAnIdleProcessHasNoCPU(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	time.Sleep(100 * time.Millisecond) // past its start-up
	s := StartSampler(cmd.Process.Pid, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	res, err := s.Stop()
	if res == nil || res.PeakRSSBytes <= 0 {
		t.Fatalf("sampler of a sleeping process = %+v, %v; want its memory", res, err)
	}
	if res.CPUSeconds != 0 || err == nil || !strings.Contains(err.Error(), "no CPU time") {
		t.Fatalf("sampler of a sleeping process: CPU %v s, err %v; want CPU absent and why", res.CPUSeconds, err)
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	line := "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 40 2 1 150 50 7 3 20 0 1 0 98765 12345678 321 18446744073709551615"
	st, err := parseStat(4242, line)
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{PID: 4242, State: 'S', PPID: 1, PGRP: 4242, CPUTicks: 150 + 50 + 7 + 3, ChildTicks: 7 + 3, StartTime: 98765, RSSPages: 321,
		Comm: "a (weird) name", UTime: 150, STime: 50, CUTime: 7, CSTime: 3, MinFlt: 100, CMinFlt: 40, MajFlt: 2, CMajFlt: 1}
	if st != want {
		t.Fatalf("parseStat = %+v\nwant %+v", st, want)
	}
	if _, err := parseStat(1, "1 (x) S 0"); err == nil {
		t.Fatal("parseStat accepted a short line")
	}
}

func TestPIDFromFile(t *testing.T) {
	t.Parallel()
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

// sampler is the target's CPU and memory alone, as the runner measures
// them: a Path with its Root and nothing else.
type sampler struct{ w *PathWindow }

func StartSampler(pid int, every time.Duration) sampler {
	return sampler{Path{Root: pid, Every: every}.Open(context.Background())}
}

func (s sampler) Stop() (*result.Resources, error) {
	f := s.w.Close(context.Background())
	return f.Resources, f.ResourcesErr
}
