package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// logged are the first submatches of re in the log, in order: what the
// service said at each start.
func logged(t *testing.T, log, re string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// startedPIDs are the pids the service logged at each start; startedAddrs
// the addresses it listened on.
func startedPIDs(t *testing.T, log string) []string { return logged(t, log, `service pid (\d+)`) }
func startedAddrs(t *testing.T, log string) []string {
	return logged(t, log, `service listening on (\S+)`)
}

// abBenchmark is a benchmark of url whose targets tailgate starts under
// the supervisor, their output in log files.
func abBenchmark(t *testing.T, url string) *Benchmark {
	cfg := benchConfig(url, 1)
	cfg.Dataset = config.Dataset{}
	return &Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{testExe(t), supervisorArg}, TargetLogDir: t.TempDir()}
}

func TestRunABRestartsBothSidesEveryPair(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, restart := range []bool{true, false} {
		t.Run("restart="+strconv.FormatBool(restart), func(t *testing.T) {
			base, head := serviceTarget(t, dir+"/b.env"), serviceTarget(t, dir+"/h.env")
			r := abBenchmark(t, base.URL)
			res, err := r.RunAB(context.Background(), ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 3, Restart: restart, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Windows.Blocks() != 3 || res.Budget != "pairs" {
				t.Fatalf("%d pairs, budget %q; want 3 and the pair budget", res.Windows.Blocks(), res.Budget)
			}
			for side, log := range map[string]string{"base": res.Base.TargetLog, "head": res.Head.TargetLog} {
				pids := startedPIDs(t, log)
				want := 1
				if restart {
					want = 3 // a fresh process for every pair
				}
				if len(pids) != want || len(slices.Compact(slices.Sorted(slices.Values(pids)))) != want {
					t.Errorf("%s started as pids %v, want %d different processes", side, pids, want)
				}
			}
			if wantStarts := map[bool]int{true: 6, false: 2}[restart]; res.Starts != wantStarts || res.StartTime <= 0 {
				t.Errorf("%d starts in %v, want %d", res.Starts, res.StartTime, wantStarts)
			}
		})
	}
}

// Restarted for every run, only one side runs at a time: both may use
// the same port.
func TestRunABRestartedSidesMayShareAPort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tgt := serviceTarget(t, dir+"/t.env")
	r := abBenchmark(t, tgt.URL)
	res, err := r.RunAB(context.Background(), ABPlan{Base: tgt, Head: tgt, Order: config.OrderABBA, MaxBlocks: 2, Restart: true, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Windows.Blocks() != 2 || len(res.Base.Runs[1].Metrics) == 0 {
		t.Fatalf("%d pairs; want 2 measured", res.Windows.Blocks())
	}
}

// The placeholder {{port}} gets a free port below the ephemeral range at
// every start; two sides running at once get two.
func TestRunABFillsThePortPlaceholder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tgt := serviceTarget(t, dir+"/t.env")
	tgt.URL = "http://127.0.0.1:" + config.PortPlaceholder
	tgt.Start.Env[serveEnv] = "127.0.0.1:" + config.PortPlaceholder
	for _, restart := range []bool{true, false} {
		r := abBenchmark(t, tgt.URL)
		res, err := r.RunAB(context.Background(), ABPlan{Base: tgt, Head: tgt, Order: config.OrderABBA, MaxBlocks: 2, Restart: restart, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
		if err != nil {
			t.Fatalf("restart %v: %v", restart, err)
		}
		base, head := startedAddrs(t, res.Base.TargetLog), startedAddrs(t, res.Head.TargetLog)
		if want := map[bool]int{true: 2, false: 1}[restart]; len(base) != want || len(head) != want {
			t.Fatalf("restart %v: started on %v and %v, want %d starts a side", restart, base, head, want)
		}
		for _, addr := range append(base, head...) {
			port, err := strconv.Atoi(addr[len("127.0.0.1:"):])
			if err != nil || port < 20000 || port >= 32000 {
				t.Errorf("started on %s: want a port in 20000–32000", addr)
			}
		}
		if !restart && base[0] == head[0] {
			t.Errorf("both sides run at once on %s", base[0])
		}
	}
}

// A drawn port another process takes before the start (parallel jobs on
// one runner) is drawn again, a bounded number of times; a start whose
// every draw is taken fails naming the port's holder.
func TestRunABDrawsAgainAPortTakenBeforeTheStart(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldPort := held.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	tgt := serviceTarget(t, dir+"/t.env")
	tgt.URL = "http://127.0.0.1:" + config.PortPlaceholder
	tgt.Start.Env[serveEnv] = "127.0.0.1:" + config.PortPlaceholder
	for _, taken := range []int{1, portDraws} {
		draws := 0
		r := abBenchmark(t, tgt.URL)
		r.FreePort = func(host string) (int, error) {
			if draws++; draws <= taken {
				return heldPort, nil
			}
			return target.FreePort(host)
		}
		res, err := r.RunAB(context.Background(), ABPlan{Base: tgt, Head: tgt, Order: config.OrderABBA, MaxBlocks: 1, Restart: true, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
		if taken == portDraws {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d", heldPort)) || draws != portDraws {
				t.Errorf("every draw taken: err %v after %d draws, want the port named after %d", err, draws, portDraws)
			}
			continue
		}
		if err != nil {
			t.Fatalf("one draw taken: %v", err)
		}
		for _, addr := range append(startedAddrs(t, res.Base.TargetLog), startedAddrs(t, res.Head.TargetLog)...) {
			if addr == held.Addr().String() {
				t.Errorf("started on the taken port %s", addr)
			}
		}
		if draws < 3 { // the taken one, then one a side (more if a parallel test took one)
			t.Errorf("%d draws, want at least 3", draws)
		}
	}
}

// look records the pairs it was shown and whether each look was final.
type look struct {
	pairs []int
	final []bool
	fits  []int // res.Fits at each look
	stop  int   // stop after this many pairs; 0: never
}

func (l *look) look(res *ABResult, final bool) bool {
	l.pairs, l.final, l.fits = append(l.pairs, res.Windows.Blocks()), append(l.final, final), append(l.fits, res.Fits)
	return l.stop > 0 && res.Windows.Blocks() >= l.stop
}

func TestRunABLooksAfterEveryPair(t *testing.T) {
	base, head := newService(t), newService(t)
	plan := ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderABBA, MaxBlocks: 5, Shape: Shape{WholeRuns: wholeIf("pairs under test")}}

	stopped := &look{stop: 3}
	plan.Look = stopped.look
	res, err := (&Benchmark{Config: benchConfig(base.URL, 1)}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Windows.Blocks() != 3 || res.Budget != "" || !slices.Equal(stopped.pairs, []int{1, 2, 3}) || slices.Contains(stopped.final, true) {
		t.Errorf("stopped by the look: %d pairs, budget %q, looks %v final %v", res.Windows.Blocks(), res.Budget, stopped.pairs, stopped.final)
	}
	if len(res.Order) != 6 {
		t.Errorf("order %v, want the 6 runs made", res.Order)
	}

	budget := &look{}
	plan.Look = budget.look
	res, err = (&Benchmark{Config: benchConfig(base.URL, 1)}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Windows.Blocks() != 5 || res.Budget != "pairs" || !slices.Equal(budget.final, []bool{false, false, false, false, true}) {
		t.Errorf("to the budget: %d pairs, budget %q, final %v", res.Windows.Blocks(), res.Budget, budget.final)
	}
}

// A time budget ends the job, with a final look, before the pair that
// would likely overrun it; the runner plans the budget before the first
// look, at least that look, and ends there at the latest.
func TestRunABTimeBudget(t *testing.T) {
	base, head := newService(t), newService(t)
	cfg := benchConfig(base.URL, 1)
	cfg.Load.Duration = config.Duration(300 * time.Millisecond) // a pair takes ≥ 600 ms
	l := &look{}
	plan := ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderABBA,
		MaxBlocks: 50, MinBlocks: 2, MaxTime: 2 * time.Second, Look: l.look, Shape: Shape{WholeRuns: wholeIf("pairs under test")}}
	start := time.Now()
	res, err := (&Benchmark{Config: cfg}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Budget != "time" || res.Windows.Blocks() < 1 || res.Windows.Blocks() > 3 {
		t.Fatalf("%d pairs, budget %q; want the time budget to end it within 3 pairs", res.Windows.Blocks(), res.Budget)
	}
	if n := len(l.final); !l.final[n-1] || slices.Contains(l.final[:n-1], true) {
		t.Errorf("finals %v: want exactly the last look final", l.final)
	}
	// planned after the second pair, before the first look (MinBlocks 2)
	if len(l.fits) >= 2 && l.fits[1] < plan.MaxBlocks && (res.Planned != max(l.fits[1], 2) || res.PlanPace <= 0 || res.Windows.Blocks() > res.Planned) {
		t.Errorf("%d pairs of a planned %d (pace %v, fits %v); want the budget planned at the second pair", res.Windows.Blocks(), res.Planned, res.PlanPace, l.fits)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v for a 2 s budget", time.Since(start))
	}
}

// The budget is planned at the pace of the blocks after the first, which
// alone probes, settles and starts cold: go-httpbin beside a busy
// neighbour took 14.6 s for its first block and about 9.5 s for the
// next, and a plan at the first block's pace ended the job at 100 s of 150.
func TestTimeBudgetPlannedAtTheLaterBlocksPace(t *testing.T) {
	t.Parallel()
	const first, later = 14600 * time.Millisecond, 13 * time.Second
	j := &abJob{plan: ABPlan{MaxBlocks: 12, MinBlocks: 3, MaxTime: 150 * time.Second}, res: &ABResult{MaxUnits: 12}}
	elapsed, n := time.Duration(0), 0
	for n < 20 {
		n++
		elapsed += later
		if n == 1 {
			elapsed = first
		}
		if j.unitDone(n, elapsed) {
			break
		}
		if n == 1 && j.res.Planned != 0 {
			t.Fatalf("planned %d blocks after the first; want the plan after the second", j.res.Planned)
		}
	}
	// 2 + (150 − 27.6 s) / 13 s = 11 blocks; at the first block's pace, 10
	if j.res.Planned != 11 || j.res.MaxUnits != 11 || j.res.PlanPace != later || n != 11 || j.res.Budget != BudgetTime {
		t.Errorf("planned %d (max units %d, pace %v), stopped after %d blocks by %q; want 11 at 13s, stopped by time after 11",
			j.res.Planned, j.res.MaxUnits, j.res.PlanPace, n, j.res.Budget)
	}
	if elapsed > 150*time.Second {
		t.Errorf("the job ran %v, beyond its 150 s budget", elapsed)
	}
}
