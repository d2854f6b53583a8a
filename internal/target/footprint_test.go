package target

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// busy starts a real process that burns CPU (a shell loop, niced so that
// it only takes idle time) with marker in its command line, and ends it
// when the test ends.
func busy(t *testing.T, marker string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("nice", "-n", "19", "sh", "-c", "while :; do :; done # "+marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitExec(t, cmd.Process.Pid, marker)
	return cmd
}

// waitExec waits until pid runs the shell with marker in its command
// line (nice has exec'd sh), so that a match can see it.
func waitExec(t *testing.T, pid int, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for st, _ := readStat(pid); st.Comm != "sh" || !strings.Contains(readCmdline(pid), marker); st, _ = readStat(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d never ran %q", pid, marker)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func writePIDFile(t *testing.T, pid int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "postmaster.pid")
	// a PostgreSQL pid file: the pid, then the data directory, …
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%d\n/var/lib/postgresql/15/main\n1733000000\n", pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func cpuOf(p result.Part) float64 {
	return p.Totals[result.FigureUserCPU] + p.Totals[result.FigureSystemCPU]
}

func partNamed(parts []result.Part, name string) (result.Part, bool) {
	i := slices.IndexFunc(parts, func(p result.Part) bool { return p.Name == name })
	if i < 0 {
		return result.Part{}, false
	}
	return parts[i], true
}

// Two real processes, each a part of its own (one by pid file, one by
// command line), and a third part that selects both: the third's CPU is
// the sum of the two, and every figure the kernel keeps is there.
func TestFootprintTwoProcessesSumAndParts(t *testing.T) {
	a := busy(t, "tailgate-footprint-a")
	busy(t, "tailgate-footprint-b")
	parts := []FootprintPart{
		{MeasurePart: config.MeasurePart{Name: "a", PIDFile: writePIDFile(t, a.Process.Pid)}},
		{MeasurePart: config.MeasurePart{Name: "b", Process: &config.ProcessMatch{CmdlineRE: regexp.MustCompile(`tailgate-footprint-b$`)}}},
		{MeasurePart: config.MeasurePart{Name: "both", Process: &config.ProcessMatch{CmdlineRE: regexp.MustCompile(`tailgate-footprint-[ab]$`)}}},
	}
	f := OpenFootprint(parts, 50*time.Millisecond)
	time.Sleep(1500 * time.Millisecond)
	got, notes := f.Close()
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
	pa, okA := partNamed(got, "a")
	pb, okB := partNamed(got, "b")
	both, okBoth := partNamed(got, "both")
	if !okA || !okB || !okBoth {
		t.Fatalf("parts: %+v", got)
	}
	if pa.Processes != 1 || pb.Processes != 1 || both.Processes != 2 {
		t.Errorf("processes: a %d, b %d, both %d; want 1, 1, 2", pa.Processes, pb.Processes, both.Processes)
	}
	if cpuOf(pa) <= 0 || cpuOf(pb) <= 0 {
		t.Fatalf("a busy loop used no CPU: a %+v, b %+v", pa.Totals, pb.Totals)
	}
	// The three parts are read in the same samples: only the ticks that
	// fall between reading one process and the next can differ.
	if d := math.Abs(cpuOf(both) - cpuOf(pa) - cpuOf(pb)); d > 0.05 {
		t.Errorf("both %.2f s ≠ a %.2f s + b %.2f s", cpuOf(both), cpuOf(pa), cpuOf(pb))
	}
	for _, fig := range []string{result.FigureUserCPU, result.FigureSystemCPU, result.FigurePeakRSS, result.FigureSyscR,
		result.FigureSyscW, result.FigureRChar, result.FigureWChar, result.FigureReadBytes, result.FigureWriteBytes,
		result.FigureVolCtxt, result.FigureMinorFaults, result.FigureMajorFaults} {
		if _, ok := both.Totals[fig]; !ok {
			t.Errorf("figure %s missing: %+v", fig, both.Totals)
		}
	}
	if rss := both.Totals[result.FigurePeakRSS]; rss < pa.Totals[result.FigurePeakRSS] {
		t.Errorf("peak RSS of both %.0f below a's %.0f", rss, pa.Totals[result.FigurePeakRSS])
	}
}

// A parent that starts short-lived children one after another and reaps
// them: their CPU, system calls and bytes reach the part through the
// parent once reaped, counted once. The parent's own cumulative figures
// (which hold every reaped child's) are the truth to compare with.
func TestFootprintCountsEndedChildrenOnce(t *testing.T) {
	script := `i=0; while [ $i -lt 400 ]; do sh -c 'n=0; while [ $n -lt 2000 ]; do n=$((n+1)); done; echo x > /dev/null'; i=$((i+1)); done; sleep 60 # tailgate-footprint-parent`
	cmd := exec.Command("sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	before := cumulative(t, pid)
	f := OpenFootprint([]FootprintPart{{MeasurePart: config.MeasurePart{Name: "parent"}, PID: pid}}, 20*time.Millisecond)
	time.Sleep(1200 * time.Millisecond)
	parts, notes := f.Close()
	after := cumulative(t, pid)
	if len(parts) != 1 {
		t.Fatalf("parts %+v, notes %q", parts, notes)
	}
	p := parts[0]
	if p.Processes < 3 {
		t.Fatalf("saw %d processes: the children came and went unseen", p.Processes)
	}
	want := float64(after.user+after.system-before.user-before.system) / clockTicks
	got := cpuOf(p)
	// The truth is read just outside the window and the children still
	// running at its ends are counted from their own figures: a few ticks.
	if want <= 0 || math.Abs(got-want) > 0.05+0.25*want {
		t.Errorf("CPU %.2f s, the parent's cumulative growth %.2f s", got, want)
	}
	syscr := p.Totals[result.FigureSyscR]
	if wantR := float64(after.io[2] - before.io[2]); syscr <= 0 || syscr > 1.5*wantR+50 {
		t.Errorf("read syscalls %.0f, the parent's cumulative growth %.0f", syscr, wantR)
	}
}

// cumulative reads a process's own and reaped children's figures now.
func cumulative(t *testing.T, pid int) procFigures {
	t.Helper()
	st, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	io, err := readProcIO(pid)
	if err != nil {
		t.Skipf("/proc/%d/io not readable here: %v", pid, err)
	}
	return procFigures{user: st.UTime + st.CUTime, system: st.STime + st.CSTime, io: io}
}

// A part that cannot be read is absent, with a note; the others are kept.
func TestFootprintUnreadablePartIsAbsentWithNote(t *testing.T) {
	a := busy(t, "tailgate-footprint-readable")
	parts := []FootprintPart{
		{MeasurePart: config.MeasurePart{Name: "ok", PIDFile: writePIDFile(t, a.Process.Pid)}},
		{MeasurePart: config.MeasurePart{Name: "nofile", PIDFile: filepath.Join(t.TempDir(), "missing.pid")}},
		{MeasurePart: config.MeasurePart{Name: "noproc", Process: &config.ProcessMatch{Comm: "no-such-comm"}}},
		{MeasurePart: config.MeasurePart{Name: "nocgroup", Cgroup: filepath.Join(t.TempDir(), "not-a-cgroup")}},
	}
	f := OpenFootprint(parts, 50*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	got, notes := f.Close()
	if len(got) != 4 || got[0].Name != "ok" || len(got[0].Totals) == 0 {
		t.Fatalf("parts %+v, want ok measured and the others by name", got)
	}
	for _, p := range got[1:] {
		if p.Totals != nil || p.Processes != 0 {
			t.Errorf("part %s not read has figures %+v", p.Name, p)
		}
	}
	for _, name := range []string{"nofile", "noproc", "nocgroup"} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "part "+name+" not measured: ") }) {
			t.Errorf("no note for part %s in %q", name, notes)
		}
	}
}

// A process that ends during the window makes its part absent (its
// figures stopped growing), not a short count.
func TestFootprintRootEndedIsAbsent(t *testing.T) {
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := OpenFootprint([]FootprintPart{{MeasurePart: config.MeasurePart{Name: "short"}, PID: cmd.Process.Pid}}, 50*time.Millisecond)
	cmd.Wait()
	time.Sleep(100 * time.Millisecond)
	got, notes := f.Close()
	if len(got) != 1 || got[0].Totals != nil || len(notes) != 1 || !strings.Contains(notes[0], "ended during the measure window") {
		t.Errorf("parts %+v, notes %q", got, notes)
	}
}

// cgroup2Root is where this machine mounts cgroup v2 (the unified
// hierarchy, or its hybrid mount), or "".
func cgroup2Root() string {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 3 && fields[2] == "cgroup2" {
			return fields[1]
		}
	}
	return ""
}

// A cgroup v2 part: a child cgroup made for the test with a real busy
// process in it. Its CPU comes from cpu.stat; memory.current and io.stat
// are read where the controllers are enabled, and said to be missing
// where not.
func TestFootprintCgroupV2(t *testing.T) {
	root := cgroup2Root()
	if root == "" {
		t.Skip("no cgroup v2 hierarchy mounted")
	}
	dir := filepath.Join(root, fmt.Sprintf("tailgate-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a child cgroup under %s: %v", root, err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	cmd := busy(t, "tailgate-footprint-cgroup")
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		t.Skipf("cannot move a process into %s: %v", dir, err)
	}
	t.Cleanup(func() { // back to the root, so that the cgroup can be removed
		cmd.Process.Kill()
		cmd.Wait()
	})
	f := OpenFootprint([]FootprintPart{{MeasurePart: config.MeasurePart{Name: "svc", Cgroup: dir}}}, 50*time.Millisecond)
	time.Sleep(1 * time.Second)
	parts, notes := f.Close()
	if len(parts) != 1 {
		t.Fatalf("parts %+v, notes %q", parts, notes)
	}
	p := parts[0]
	if p.Processes != 1 {
		t.Errorf("processes %d, want 1", p.Processes)
	}
	if cpuOf(p) <= 0 {
		t.Errorf("cpu.stat showed no CPU for a busy process: %+v", p.Totals)
	}
	for file, note := range map[string]string{"memory.current": "memory.current not readable", "io.stat": "io.stat not readable"} {
		_, err := os.Stat(filepath.Join(dir, file))
		noted := slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, note) })
		if (err != nil) != noted {
			t.Errorf("%s present: %v, noted as missing: %v (%q)", file, err == nil, noted, notes)
		}
	}
}

func TestPathOpenCloseAddsToRun(t *testing.T) {
	a := busy(t, "tailgate-footprint-path")
	dir := t.TempDir()
	counterFile := filepath.Join(dir, "calls")
	os.WriteFile(counterFile, []byte("100"), 0o600)
	path := Path{
		Parts: []FootprintPart{{MeasurePart: config.MeasurePart{Name: "db", PIDFile: writePIDFile(t, a.Process.Pid)}}},
		Counters: Counters{Children: direct(), Sources: []config.CounterSource{{
			Name:    "pg",
			Command: &config.Command{Shell: `printf '{"calls": %s, "rows": 7}' "$(cat ` + counterFile + `)"`},
		}}},
		Every: 50 * time.Millisecond,
	}
	w := path.Open(context.Background())
	os.WriteFile(counterFile, []byte("160"), 0o600)
	time.Sleep(300 * time.Millisecond)
	fp := w.Close(context.Background())
	run := &result.Run{Iterations: result.Iterations{Completed: 20, Counted: result.CountAll}, Resources: &result.Resources{CPUSeconds: 0.5}}
	fp.AddTo(run)
	if v, ok := run.Metrics[result.CounterKey("pg", "calls")]; !ok || v != 3 {
		t.Errorf("calls per iteration %v (present %v), want 60/20 = 3", v, ok)
	}
	if v, ok := run.Metrics[result.CounterKey("pg", "rows")]; !ok || v != 0 {
		t.Errorf("rows per iteration %v (present %v): a counter that did not move is a measured 0", v, ok)
	}
	dbCPU, ok := run.Metrics[result.PartCPUKey("db")]
	if !ok {
		t.Fatalf("no db CPU: %+v, notes %q", run.Metrics, run.Notes)
	}
	if got, want := run.Metrics[result.PathCPUPerIteration], 0.5*1000/20+dbCPU; math.Abs(got-want) > 1e-9 {
		t.Errorf("path CPU %v, want target %v + db %v", got, 25.0, dbCPU)
	}
}

// A part selected by command line whose processes come and go, none of
// them running when the window opens (a pool that reconnects between
// requests): it is measured from the samples that saw one, and its server
// (the parent they share) from the window's start, ended children
// included; a selection nothing ever matched is absent with a note that
// says why.
func TestFootprintProcessesThatComeAndGo(t *testing.T) {
	// The children's command line carries the marker, the parent's only
	// its pieces; the parent waits before the first child.
	script := `m=tailgate-fp-reconnect; sleep 0.3; i=0; while [ $i -lt 300 ]; do sh -c "n=0; while [ \$n -lt 3000 ]; do n=\$((n+1)); done # ${m}-child"; sleep 0.01; i=$((i+1)); done; sleep 60`
	cmd := exec.Command("sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	before := cumulative(t, cmd.Process.Pid)
	parts := []FootprintPart{
		{MeasurePart: config.MeasurePart{Name: "backends", Process: &config.ProcessMatch{Cmdline: "tailgate-fp-reconnect-child", CmdlineRE: regexp.MustCompile(`tailgate-fp-reconnect-child`)}}},
		{MeasurePart: config.MeasurePart{Name: "never", Process: &config.ProcessMatch{Cmdline: "tailgate-fp-no-such", CmdlineRE: regexp.MustCompile(`tailgate-fp-no-such`)}}},
	}
	f := OpenFootprint(parts, 20*time.Millisecond)
	time.Sleep(1500 * time.Millisecond)
	got, notes := f.Close()
	after := cumulative(t, cmd.Process.Pid)
	p, ok := partNamed(got, "backends")
	if !ok || p.Totals == nil || p.Processes < 2 {
		t.Fatalf("part backends %+v (notes %q): want the children the samples saw", p, notes)
	}
	server, ok := p.Totals[result.FigureServerCPU]
	want := float64(after.user+after.system-before.user-before.system) / clockTicks
	if !ok || server < cpuOf(p) || want <= 0 || math.Abs(server-want) > 0.05+0.25*want {
		t.Errorf("server CPU %.2f s (ok %v), the part's %.2f s, the parent's cumulative growth %.2f s: want the parent's whole window", server, ok, cpuOf(p), want)
	}
	if never, _ := partNamed(got, "never"); never.Totals != nil {
		t.Errorf("a selection nothing matched has figures %+v", never)
	}
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.HasPrefix(n, "part never not measured: no process of ") && strings.Contains(n, "was seen in the window") && strings.Contains(n, "pid_file")
	}) {
		t.Errorf("no note says why part never is absent: %q", notes)
	}
}

// A tree's samples read its processes and the new ones each time, not
// every process (issue 46): the test's own process, outside the tree,
// is read about once while the tree's root is read at every sample.
func TestFootprintTreeSamplesSkipOtherProcesses(t *testing.T) {
	root, self := treeSampleReads(t, 400*time.Millisecond)
	if root < 8 || 4*self > root {
		t.Errorf("the root read %d times, this process %d: want every sample to read the root, the others about once", root, self)
	}
}

// A process outside the trees is read again at least once a second: a
// reused scan never passes its figures on beyond that, so a pid reused
// by a new child of the tree is seen within a second.
func TestFootprintTreeSamplesReadOtherProcessesEverySecond(t *testing.T) {
	if _, self := treeSampleReads(t, 2500*time.Millisecond); self < 2 {
		t.Errorf("this process was read %d times in 2.5 s of samples: want at least once a second", self)
	}
}

// treeSampleReads samples a process tree every 10 ms for d and says how
// often its root and this process (outside it) were read.
func treeSampleReads(t *testing.T, d time.Duration) (root, self int) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	reads := map[int]int{}
	scanMu.Lock()
	statOf = func(pid int) (procStat, error) { reads[pid]++; return readStat(pid) }
	scanMu.Unlock()
	t.Cleanup(func() { scanMu.Lock(); statOf = readStat; scanMu.Unlock() })
	f := OpenFootprint([]FootprintPart{{MeasurePart: config.MeasurePart{Name: "sleep"}, PID: cmd.Process.Pid}}, 10*time.Millisecond)
	time.Sleep(d)
	parts, notes := f.Close()
	scanMu.Lock()
	root, self = reads[cmd.Process.Pid], reads[os.Getpid()]
	scanMu.Unlock()
	if len(parts) != 1 || parts[0].Processes != 1 {
		t.Errorf("parts %+v (notes %q): want the tree's one process", parts, notes)
	}
	return root, self
}
