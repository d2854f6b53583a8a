package target

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Footprint measures the parts of a request path over one window: per
// part, the summed CPU time, peak memory, I/O and kernel work counters
// (system calls, context switches, page faults) of its processes. It
// rescans the processes every period, so that those that come and go (a
// database's backends) count.
//
// A process counts its growth between the first and the last sample that
// saw it (from zero when born in the window). An ended process's CPU,
// faults and I/O pass to its parent when reaped (cutime, cminflt, the
// parent's io), so it counts exactly through a measured parent; else what
// it did after the last sample is lost, as are every ended process's
// context switches (the kernel does not pass those on). A cgroup's
// cpu.stat, memory.current and io.stat lose nothing.
//
// It also measures a started target's CPU time and peak memory
// (Path.Root): exact from each process's CPU-time clock (ended threads
// included), else from clock ticks.
type Footprint struct {
	parts      []*partWindow
	roots      []int
	stop, done chan struct{}
	mu         sync.Mutex
	stopOnce   sync.Once
}

type FootprintPart struct {
	config.MeasurePart
	// PID, when not 0, is the root of the process tree measured (the
	// target tailgate started), in place of PIDFile, Process and Cgroup.
	PID int
	// resources: the part is Path.Root (the window's Resources, CPU-time
	// clock read too); hidden: only for that, not listed among the parts.
	resources, hidden bool
}

const DefaultSampleEvery = 100 * time.Millisecond // when none is given

// procKey names one process: a pid is reused, a pid with its start time is not.
type procKey struct {
	pid   int
	start uint64
}

// OpenFootprint samples every part now and every period (DefaultSampleEvery
// when ≤ 0) until Close.
func OpenFootprint(parts []FootprintPart, every time.Duration) *Footprint {
	f := &Footprint{stop: make(chan struct{}), done: make(chan struct{})}
	every = durationOr(every, DefaultSampleEvery)
	for _, p := range parts {
		f.parts = append(f.parts, newPartWindow(p, every))
		f.roots = append(f.roots, f.parts[len(f.parts)-1].root) // 0: not a tree, all is read
	}
	f.sample(true)
	go f.loop(every)
	return f
}

func (f *Footprint) loop(every time.Duration) {
	defer close(f.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
			f.sample(false)
		}
	}
}

func (f *Footprint) sample(first bool) {
	all, err := allStats(f.roots...)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.parts {
		if err != nil {
			p.fail(err)
		} else {
			p.sample(all, first)
		}
	}
}

// Close takes a last sample and returns each part's figures and a note for
// each part or figure not measured (absent, never zero: a part not
// measured at all is there by its name alone). It may be called again.
func (f *Footprint) Close() ([]result.Part, []string) {
	f.stopOnce.Do(func() { close(f.stop) })
	<-f.done
	f.sample(false)
	f.mu.Lock()
	defer f.mu.Unlock()
	var parts []result.Part
	var notes []string
	for _, p := range f.parts {
		if !p.spec.hidden {
			part, pnotes := p.result()
			parts, notes = append(parts, part), append(notes, pnotes...)
		}
	}
	return parts, notes
}

// procFigures are one process's cumulative figures at one sample.
type procFigures struct {
	user, system   uint64 // ticks, own and reaped children's
	minflt, majflt uint64 // own and reaped children's
	io             [len(ioFields)]uint64
	ctxt           uint64 // voluntary context switches: own only
	ioOK, ctxtOK   bool
	// nanos: its threads' run time (its CPU-time clock, Path.Root only);
	// child: the reaped children's ticks, which that clock lacks.
	nanos, child uint64
	nanosOK      bool
}

// ioFields are the /proc/<pid>/io fields and the part figure each becomes.
var ioFields = [6][2]string{
	{"rchar", result.FigureRChar}, {"wchar", result.FigureWChar},
	{"syscr", result.FigureSyscR}, {"syscw", result.FigureSyscW},
	{"read_bytes", result.FigureReadBytes}, {"write_bytes", result.FigureWriteBytes},
}

type procSpan struct {
	first, last procFigures
	parent      procKey // its parent when last seen
	present     bool    // seen by the latest sample
	inexact     bool    // a sample could not read its CPU-time clock
}

type partWindow struct {
	spec    FootprintPart
	root    int // the pid file's or the started target's process
	spans   map[procKey]*procSpan
	peakRSS int64
	err     error // the part cannot be measured at all
	gone    string
	ioLost  string // why I/O figures are absent
	ctxLost string
	cgroup  *cgroupWindow
	cmdline map[procKey]string
	// server, for a part that selects processes by name, is the parent
	// most of them had (a database's postmaster): its tree's whole CPU
	// (cutime included) is what the part's share is of. serverTried: it
	// was looked for; firstAll keeps the first sample until then.
	server                  procKey
	serverFirst, serverLast uint64 // ticks
	serverOK, serverTried   bool
	firstAll                []procStat
	every                   time.Duration
}

func newPartWindow(p FootprintPart, every time.Duration) *partWindow {
	w := &partWindow{spec: p, root: p.PID, spans: map[procKey]*procSpan{}, cmdline: map[procKey]string{}, every: every}
	switch {
	case p.PID != 0:
	case p.PIDFile != "":
		w.root, w.err = pidFromFirstLine(p.PIDFile, "pid file")
	case p.Cgroup != "":
		w.cgroup, w.err = openCgroup(p.Cgroup)
	}
	return w
}

func (w *partWindow) fail(err error) { w.err = cmp.Or(w.err, err) }

func (w *partWindow) members(all []procStat) ([]procStat, error) {
	switch {
	case w.root != 0:
		return tree(all, w.root), nil
	case w.spec.Process != nil:
		return w.matching(all), nil
	default:
		pids, err := w.cgroup.pids()
		return slices.DeleteFunc(slices.Clone(all), func(st procStat) bool { return !slices.Contains(pids, st.PID) }), err
	}
}

func (w *partWindow) matching(all []procStat) []procStat {
	m := w.spec.Process
	return slices.DeleteFunc(slices.Clone(all), func(st procStat) bool {
		if st.gone() || m.Comm != "" {
			return st.gone() || st.Comm != m.Comm
		}
		key := procKey{st.PID, st.StartTime}
		line, seen := w.cmdline[key]
		if !seen {
			line = readCmdline(st.PID)
			if line != "" { // empty while it execs: read again next time
				w.cmdline[key] = line
			}
		}
		return m.CmdlineRE == nil || line == "" || !m.CmdlineRE.MatchString(line)
	})
}

func (w *partWindow) sample(all []procStat, first bool) {
	if w.err != nil {
		return
	}
	members, err := w.members(all)
	if err != nil {
		w.fail(err)
		return
	}
	// Processes selected by name come and go (a reconnecting pool's
	// backends): none at the start is no error; result says if none was
	// ever seen.
	if first && len(members) == 0 && w.spec.Process == nil {
		if w.root != 0 {
			w.fail(fmt.Errorf("process %d is not running", w.root))
		} else {
			w.fail(fmt.Errorf("no process found (%s)", w.describe()))
		}
		return
	}
	if w.root != 0 && (len(members) == 0 || members[0].gone()) {
		w.gone = fmt.Sprintf("process %d ended during the measure window", w.root)
		return
	}
	if w.cgroup != nil {
		w.cgroup.sample(first)
	}
	if w.spec.Process != nil {
		w.sampleServer(all, members, first)
	}
	w.record(all, members, first)
}

// record updates the members' spans and the peak memory with one sample.
func (w *partWindow) record(all, members []procStat, first bool) {
	byPID := map[int]procKey{}
	for _, st := range all {
		byPID[st.PID] = procKey{st.PID, st.StartTime}
	}
	for _, sp := range w.spans {
		sp.present = false
	}
	var rss int64
	for _, st := range members {
		rss += st.RSSPages
		key := procKey{st.PID, st.StartTime}
		fig := w.read(st)
		sp, seen := w.spans[key]
		if !seen {
			sp = &procSpan{}
			if first {
				sp.first = fig
			} else { // born during the window: counts from zero
				sp.first = procFigures{ioOK: fig.ioOK, ctxtOK: fig.ctxtOK, nanosOK: fig.nanosOK}
			}
			w.spans[key] = sp
		}
		sp.inexact = sp.inexact || !fig.nanosOK
		// An unreadable clock (the process ending) keeps the most seen.
		fig.nanos = max(fig.nanos, sp.last.nanos)
		if !fig.ioOK { // ended between reading its stat and its io: keep the last seen
			fig.io = sp.last.io
		}
		if !fig.ctxtOK {
			fig.ctxt = sp.last.ctxt
		}
		sp.last, sp.present, sp.parent = fig, true, byPID[st.PPID]
	}
	w.peakRSS = max(w.peakRSS, rss*int64(os.Getpagesize()))
}

// sampleServer follows the CPU of the members' server (findServer) while
// it lives.
func (w *partWindow) sampleServer(all, members []procStat, first bool) {
	if first {
		w.firstAll = all
	}
	if !w.serverTried && len(members) > 0 {
		w.serverTried = true
		w.findServer(all, members)
		w.firstAll = nil
	}
	if !w.serverOK {
		return
	}
	procs := tree(all, w.server.pid)
	if len(procs) == 0 || procs[0].StartTime != w.server.start || procs[0].gone() {
		w.serverOK = false // the server ended or restarted: its CPU over the window is unknown
		return
	}
	w.serverLast = treeTicks(procs)
}

// findServer picks the parent most members share (not init) and reads
// its tree's CPU at the window's start; one that began after it is none.
func (w *partWindow) findServer(all, members []procStat) {
	parents := map[int]int{}
	best := 0
	for _, st := range members {
		parents[st.PPID]++
		if parents[st.PPID] > parents[best] || (parents[st.PPID] == parents[best] && st.PPID < best) {
			best = st.PPID
		}
	}
	if best <= 1 {
		return
	}
	for _, st := range all {
		if st.PID == best {
			w.server = procKey{st.PID, st.StartTime}
		}
	}
	start := tree(w.firstAll, best)
	if w.server.pid == 0 || len(start) == 0 || start[0].StartTime != w.server.start {
		return
	}
	w.serverFirst, w.serverOK = treeTicks(start), true
}

func treeTicks(procs []procStat) uint64 {
	var ticks uint64
	for _, st := range procs {
		ticks += st.CPUTicks
	}
	return ticks
}

// read reads one process's figures; an unreadable file marks its figures
// lost for the part.
func (w *partWindow) read(st procStat) procFigures {
	fig := procFigures{
		user: st.UTime + st.CUTime, system: st.STime + st.CSTime,
		minflt: st.MinFlt + st.CMinFlt, majflt: st.MajFlt + st.CMajFlt, child: st.ChildTicks,
	}
	if w.spec.resources {
		fig.nanos, fig.nanosOK = processNanos(st.PID)
	}
	if w.spec.hidden {
		return fig
	}
	var err error
	fig.io, err = readProcIO(st.PID)
	fig.ioOK = w.lost(&w.ioLost, "I/O", st, err)
	fig.ctxt, err = readVoluntaryCtxt(st.PID)
	fig.ctxtOK = w.lost(&w.ctxLost, "context switches", st, err)
	return fig
}

// lost reports whether a read succeeded; one that failed not because the
// process ended (for permission) marks the figure lost for the part.
func (w *partWindow) lost(why *string, what string, st procStat, err error) bool {
	if err == nil || st.gone() || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return err == nil
	}
	if now, serr := readStat(st.PID); serr == nil && now.StartTime == st.StartTime && !now.gone() && *why == "" {
		*why = fmt.Sprintf("%s of process %d not readable: %v", what, st.PID, err)
	}
	return false
}

func (w *partWindow) describe() string {
	if w.spec.PID != 0 {
		return fmt.Sprintf("process %d", w.spec.PID)
	}
	return w.spec.MeasurePart.String()
}

// resources is Path.Root's tree's CPU time and peak memory: nil with why
// when unmeasured, the peak alone with why when it showed no CPU time.
func (w *partWindow) resources() (*result.Resources, error) {
	switch {
	case w.err != nil:
		return nil, w.err
	case w.gone != "":
		return nil, errors.New(w.gone)
	case w.peakRSS <= 0:
		return nil, fmt.Errorf("the samples of process %d showed no memory in use", w.root)
	}
	var ticks, nanos, child float64
	exact := len(w.spans) > 0
	w.eachSpan(func(sp *procSpan, grow func(first, last uint64) float64) {
		ticks += grow(sp.first.user+sp.first.system, sp.last.user+sp.last.system)
		nanos += grow(sp.first.nanos, sp.last.nanos)
		child += grow(sp.first.child, sp.last.child)
		exact = exact && !sp.inexact
	})
	res := &result.Resources{CPUSeconds: max(ticks, 0) / clockTicks, PeakRSSBytes: w.peakRSS}
	if exact {
		res.CPUSeconds = max(nanos/1e9+child/clockTicks, 0)
	}
	if res.CPUSeconds <= 0 { // max made it 0, never -0
		return res, fmt.Errorf("the samples of process %d showed no CPU time (less than the %d ms resolution of clock ticks?)", w.root, 1000/clockTicks)
	}
	return res, nil
}

// eachSpan calls f with each span and how a figure of it grew: a process
// reaped by one still in the part has its whole life in that parent's
// figures, so it counts minus what it had at the first sample.
func (w *partWindow) eachSpan(f func(sp *procSpan, grow func(first, last uint64) float64)) {
	members := map[procKey]bool{}
	for k, sp := range w.spans {
		if sp.present {
			members[k] = true
		}
	}
	for _, sp := range w.spans {
		reaped := !sp.present && members[sp.parent]
		f(sp, func(first, last uint64) float64 {
			if reaped {
				return -float64(first)
			}
			return float64(last) - float64(first)
		})
	}
}

// result is the part's figures; one not measured has its name alone (no
// figures, so no path CPU either).
func (w *partWindow) result() (result.Part, []string) {
	name, why := w.spec.Name, w.gone
	switch {
	case w.err != nil:
		why = w.err.Error()
	case why == "" && len(w.spans) == 0:
		why = fmt.Sprintf("no process of %s was seen in the window: processes that live shorter than the time between two samples (%s), as the backends of a pool that reconnects, end unseen; "+
			"measure their server whole (pid_file of it: its ended children count through it) or its cgroup", w.describe(), w.every)
	}
	if why != "" {
		return result.Part{Name: name}, []string{fmt.Sprintf("part %s not measured: %s", name, why)}
	}
	var user, system, minflt, majflt, ctxt float64
	var io [len(ioFields)]float64
	w.eachSpan(func(sp *procSpan, inherited func(first, last uint64) float64) {
		user += inherited(sp.first.user, sp.last.user)
		system += inherited(sp.first.system, sp.last.system)
		minflt += inherited(sp.first.minflt, sp.last.minflt)
		majflt += inherited(sp.first.majflt, sp.last.majflt)
		ctxt += float64(sp.last.ctxt) - float64(sp.first.ctxt) // not inherited: lost with the process
		for i := range io {
			io[i] += inherited(sp.first.io[i], sp.last.io[i])
		}
	})
	totals := map[string]float64{
		result.FigureUserCPU:     max(user, 0) / clockTicks,
		result.FigureSystemCPU:   max(system, 0) / clockTicks,
		result.FigureMinorFaults: max(minflt, 0),
		result.FigureMajorFaults: max(majflt, 0),
	}
	if w.peakRSS > 0 {
		totals[result.FigurePeakRSS] = float64(w.peakRSS)
	}
	var notes []string
	for _, lost := range []string{w.ctxLost, w.ioLost} {
		if lost != "" {
			notes = append(notes, fmt.Sprintf("part %s: %s", name, lost))
		}
	}
	if w.ctxLost == "" {
		totals[result.FigureVolCtxt] = max(ctxt, 0)
	}
	for i, f := range ioFields {
		if w.ioLost == "" {
			totals[f[1]] = max(io[i], 0)
		}
	}
	if w.cgroup != nil {
		notes = append(notes, w.cgroup.apply(name, totals)...)
	}
	if w.serverOK && w.serverLast >= w.serverFirst {
		totals[result.FigureServerCPU] = float64(w.serverLast-w.serverFirst) / clockTicks
	}
	return result.Part{Name: name, Totals: totals, Processes: len(w.spans)}, notes
}

// readProcIO reads /proc/<pid>/io (its owner's and root's only).
func readProcIO(pid int) ([6]uint64, error) {
	var out [6]uint64
	values, err := readNumbers(filepath.Join(procRoot, strconv.Itoa(pid), "io"))
	if err != nil {
		return out, err
	}
	for i, f := range ioFields {
		v, ok := values[f[0]]
		if !ok {
			return [6]uint64{}, fmt.Errorf("/proc/%d/io has no %s", pid, f[0])
		}
		out[i] = v
	}
	return out, nil
}

func readCmdline(pid int) string {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}

// Path is what a measured window accounts: the started target's CPU and
// memory (Root), the parts of the request path and the service's work
// counters.
type Path struct {
	// Root, when not 0, is the started target's process: its tree's CPU
	// and memory are the window's Resources (one sampler with a part of
	// that pid).
	Root     int
	Parts    []FootprintPart
	Counters Counters
	// Every is the sampling period (DefaultSampleEvery when ≤ 0).
	Every time.Duration
}

func (p Path) IsZero() bool { return p.Root == 0 && len(p.Parts) == 0 && len(p.Counters.Sources) == 0 }

// WithoutCounters is the path without counters, for windows whose
// counters are read around many of them at once.
func (p Path) WithoutCounters() Path {
	p.Counters.Sources = nil
	return p
}

type PathWindow struct {
	path     Path
	parts    *Footprint
	counters CounterSnapshot
}

// Open reads the counters and takes the parts' first sample.
func (p Path) Open(ctx context.Context) *PathWindow {
	w := &PathWindow{path: p}
	// The parts' CPU first: reading the counters can take a while (a
	// command, an HTTP fetch), and the load does not wait for it.
	parts := slices.Clone(p.Parts)
	if p.Root != 0 {
		i := slices.IndexFunc(parts, func(fp FootprintPart) bool { return fp.PID == p.Root })
		if i < 0 {
			parts, i = append(parts, FootprintPart{MeasurePart: config.MeasurePart{Name: config.TargetPart}, PID: p.Root, hidden: true}), len(parts)
		}
		parts[i].resources = true
	}
	if len(parts) > 0 {
		w.parts = OpenFootprint(parts, p.Every)
	}
	w.counters = p.Counters.Read(ctx) // none without sources
	return w
}

type PathFootprint struct {
	Parts      []result.Part
	Counters   map[string]float64
	Statements []result.Statement // pg_stat_statements sources
	Notes      []string
	// Resources: Path.Root's CPU and peak memory; ResourcesErr: why not.
	Resources    *result.Resources
	ResourcesErr error
}

// Close ends the parts' sampling and reads the counters again.
func (w *PathWindow) Close(ctx context.Context) PathFootprint {
	var out PathFootprint
	if w.parts != nil {
		out.Parts, out.Notes = w.parts.Close()
		for _, p := range w.parts.parts {
			if p.spec.resources {
				out.Resources, out.ResourcesErr = p.resources()
			}
		}
	}
	if len(w.path.Counters.Sources) > 0 {
		after := w.path.Counters.Read(ctx)
		growth, notes := Growth(w.counters, after)
		out.Notes = append(out.Notes, notes...)
		if len(growth) > 0 {
			out.Counters = growth
		}
		out.Statements = StatementGrowth(w.counters, after)
	}
	return out
}

// AddTo puts the footprint on a run and sums it up (result.Run.Summarize).
func (f PathFootprint) AddTo(run *result.Run) {
	run.Parts, run.Counters, run.Statements = f.Parts, f.Counters, f.Statements
	run.Notes = append(run.Notes, f.Notes...)
	run.Summarize()
}
