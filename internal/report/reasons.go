package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	pl "github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The sentences of how a job ran that the runner and the pipeline return as facts (typed reasons), worded here once.

// ABStop is why an A/B job ended. Budget is the runner's: "pairs" (the budget of MaxBlocks blocks), "time"
// (ab.max_time, MaxTime), or "" (the verdict ended it).
type ABStop struct {
	Blocks, MaxBlocks int
	Elapsed, MaxTime  time.Duration
	Budget            string
}

// ABStopped is the line that ends an A/B job's log.
func ABStopped(s ABStop, v gate.Verdict) string {
	why := "the verdict is clear: " + LookReason(v)
	switch s.Budget {
	case "time":
		why = fmt.Sprintf("the time budget ab.max_time (%s) left no room for another %s; %s", s.MaxTime, v.Sequential.UnitWord(1), LookReason(v))
	case "pairs":
		why = fmt.Sprintf("the budget of %d %s is spent; %s", s.MaxBlocks, v.Sequential.UnitWord(s.MaxBlocks), LookReason(v))
	}
	return fmt.Sprintf("A/B stopped after %d %s in %s: %s", s.Blocks, pl.Of(s.Blocks, "block", "blocks"), s.Elapsed.Round(100*time.Millisecond), why)
}

func ABLook(n, most int, v gate.Verdict) string {
	return fmt.Sprintf("after block %d of at most %d: %s", n, most, LookReason(v))
}

func LookReason(v gate.Verdict) string {
	switch {
	case v.Sequential == nil:
		return string(v.Outcome)
	case v.Sequential.Done:
		return fmt.Sprintf("%s (%s)", v.Outcome, StopReason(v.Sequential))
	}
	return "continuing (" + StopReason(v.Sequential) + ")"
}

// Spent says where a job's time went, stage by stage in order, each with
// its share: "start 1.2 s (10 %), …"; "" when none was counted.
func Spent(by map[string]time.Duration, order []string) string {
	var total time.Duration
	for _, d := range by {
		total += d
	}
	var parts []string
	for _, k := range order {
		if d := by[k]; d > 0 && total > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f s (%.0f %%)", k, d.Seconds(), 100*d.Seconds()/total.Seconds()))
		}
	}
	return strings.Join(parts, ", ")
}

// Procedure is whose build, start and measuring an A/B job ran.
type Procedure int

const (
	ProcedureFile Procedure = iota
	ProcedureBase
	ProcedureHead
)

// ABSide is where an A/B side came from: a commit checked out in a worktree (Ref, Commit) and/or a target of its own
// (URL; Started when tailgate starts it).
type ABSide struct {
	Side, Ref, Commit, URL string
	Own, Started           bool
}

func SideNotes(p Procedure, sides []ABSide) []string {
	whose := [...]string{"the benchmark file's", "the base commit's", "the pull request's (benchmark_from: head)"}[p]
	var out []string
	for _, s := range sides {
		switch {
		case s.Commit != "" && s.Own:
			out = append(out, fmt.Sprintf("%s: %s at %s, checked out in a temporary worktree, built there with %s build and started with its own target (ab.%s: %s)",
				s.Side, s.Ref, shortSHA(s.Commit), whose, s.Side, s.URL))
		case s.Commit != "":
			out = append(out, fmt.Sprintf("%s: built from %s at %s in a temporary worktree, with %s build and target", s.Side, s.Ref, shortSHA(s.Commit), whose))
		case s.Own && s.Started:
			out = append(out, fmt.Sprintf("%s: not a build of a commit: the target of ab.%s (%s), started by %s command in the working tree", s.Side, s.Side, s.URL, whose))
		case s.Own:
			out = append(out, fmt.Sprintf("%s: not a build of a commit: the target of ab.%s (%s), started elsewhere", s.Side, s.Side, s.URL))
		}
	}
	return out
}

// ABBaseline says what an A/B head was judged against: the base build (ref at commit when built from one), itself
// (A/A), or a second process of it.
func ABBaseline(aa, twoProcesses bool, ref, commit string) string {
	s := "the base build, measured in this job"
	switch {
	case aa && twoProcesses:
		s = "a second process of the base build (A/A), measured in this job"
	case aa:
		s = "the base build against itself (A/A), measured in this job"
	}
	if commit != "" {
		s += fmt.Sprintf(" (%s at %s)", ref, shortSHA(commit))
	}
	return s
}

// BaseRef says how a base ref given to the job (given, by from) met the benchmark file's ab.base: it replaced
// ab.base.ref fileRef, or was not used by a base that is a target of its own (own, at url); nil when neither.
func BaseRef(given, from, fileRef string, own bool, url string) []string {
	switch {
	case given == "":
	case fileRef != "" && fileRef != given:
		return []string{fmt.Sprintf("ab.base.ref %q of the benchmark file is not used: the base is %s (%s), which replaces it", fileRef, from, shortSHA(given))}
	case fileRef == "" && own:
		return []string{fmt.Sprintf("%s (%s) is not used: ab.base is a target of its own (%s) that names no ref to replace", from, shortSHA(given), url)}
	}
	return nil
}

// Sealing is how an A/B job's sides were kept apart: not at all (None: the job started no process; Unsealed: why not,
// with ab.unsealed: allow), each side's tree (Dirs: base, head), the runner's directories each side wrote in a layer of
// its own (Shared), the root sockets hidden (Sockets), and the base commit's files the head ran (Pinned).
type Sealing struct {
	None                    bool
	Unsealed                string
	Dirs                    [2]string
	Shared, Sockets, Pinned []string
}

// Notes say whether the sides were sealed, where each side's commands ran, and, with the base commit's benchmark
// (fromBase), which of its files the head ran.
func (s Sealing) Notes(fromBase bool) []string {
	if s.None {
		return nil
	}
	var out []string
	if s.Unsealed != "" {
		out = append(out, "the sides were NOT sealed off from each other (ab.unsealed: allow): "+s.Unsealed+"; the head's code could reach the base's tree, data and processes")
	} else {
		note := "the sides were sealed off from each other: each side's build, service and commands ran in mount, PID and IPC namespaces of their own, the other side's tree, the runner's files and the other's temporary directory hidden, /proc its own; each side had one TMPDIR and /dev/shm of its own for the whole job"
		if len(s.Shared) > 0 {
			note += ", and what it wrote to " + strings.Join(s.Shared, ", ") + " stayed in a layer of its own"
		}
		out = append(out, note)
		if len(s.Sockets) > 0 {
			out = append(out, "the container engines' sockets were hidden from the sides (ab.root_sockets: allow shows them): "+strings.Join(s.Sockets, ", "))
		}
	}
	out = append(out, fmt.Sprintf("the commands of each side ran in its own tree: base in %s, head in %s", s.Dirs[0], s.Dirs[1]))
	switch {
	case !fromBase || len(s.Pinned) == 0:
		return out
	case s.Unsealed != "":
		return append(out, "the files the base commit's commands run were NOT taken from the base commit for the head (unsealed): the head ran its own "+strings.Join(s.Pinned, ", "))
	}
	return append(out, "the files the base commit's commands run came from the base commit for both sides (with benchmark_from: base, every file a command of the procedure names as its program, script or makefile, and every file under ab.procedure): "+strings.Join(s.Pinned, ", "))
}

// tooUncertain says why a stored spread is too uncertain to pool: the
// earlier jobs' spreads disagree with each other (a runner sometimes
// busy), or they hold too few blocks.
func tooUncertain(p stats.SeqPrior) string {
	if (stats.SeqPrior{SD: p.SD, DF: p.Summed}).UsableDF() > 0 {
		return fmt.Sprintf("comes from earlier jobs whose spreads disagree with each other: worth %d of their %d degrees of freedom, too few to pool", p.DF, p.Summed)
	}
	return fmt.Sprintf("has %d degrees of freedom, too few to pool: too few earlier blocks", p.DF)
}

// NoiseNotes say which noise an A/B verdict used, metric by metric: the spread stored in the noise file path (stored,
// from earlier jobs) pooled with the job's own, or the job's own and why.
func NoiseNotes(path string, earlier int, stored map[string]stats.SeqPrior, v gate.Verdict) []string {
	if v.Sequential == nil {
		return nil
	}
	if len(stored) == 0 {
		return []string{fmt.Sprintf("noise: this job's own (the noise file %s had no earlier job of this benchmark, machine and design; this job's is now kept there)", path)}
	}
	var pooled, own []string
	for _, f := range v.Findings {
		p, ok := stored[f.Key]
		mine, judged := v.Noise[f.Key]
		switch df := v.PriorUsed[f.Key]; {
		case !ok || !judged || !(p.SD > 0): // not judged, or a spread of 0 (a rate that never moved): nothing to pool
		case df > 0 && p.UsableDF() > 0: // else the prior was the job's own windows (gate.withinNoise)
			pooled = append(pooled, fmt.Sprintf("%s (stored spread %s, %d degrees of freedom)", f.Label, SpreadText(f, p.SD), df))
		case p.UsableDF() == 0:
			own = append(own, fmt.Sprintf("%s (stored %s %s)", f.Label, SpreadText(f, p.SD), tooUncertain(p)))
		default:
			own = append(own, fmt.Sprintf("%s (stored %s disagrees with this job's %s)", f.Label, SpreadText(f, p.SD), SpreadText(f, mine.SD)))
		}
	}
	slices.Sort(pooled)
	var out []string
	if len(pooled) > 0 {
		out = append(out, fmt.Sprintf("noise: pooled with %d earlier %s in %s for %s", earlier, pl.Of(earlier, "job", "jobs"), path, strings.Join(pooled, "; ")))
	}
	if len(own) > 0 {
		out = append(out, "noise: this job's own for "+strings.Join(own, "; "))
	}
	return out
}

// SpreadText is a spread on the comparison scale in the finding's units, with two significant digits where one decimal
// would read 0 (a nearly exact count: "stored 0.0 % disagrees with 0.0 %" says nothing).
func SpreadText(f gate.Finding, sd float64) string {
	if f.Percent {
		return fmt.Sprintf("%.2f pp", sd)
	}
	pct := 100 * (math.Exp(sd) - 1)
	if pct < 0.05 {
		return fmt.Sprintf("%.2g %%", pct)
	}
	return fmt.Sprintf("%.1f %%", pct)
}

// CreepNote is the note of a comparison of the head with an older state of main (gate.creep.against), name, of runs
// runs: each gated metric's change, or, with otherDefinition, that it was not compared.
func CreepNote(name string, runs int, findings []gate.Finding, otherDefinition bool) string {
	if otherDefinition {
		return fmt.Sprintf("Creep against %s: not compared, it measured another benchmark definition.", name)
	}
	var changes []string
	for _, f := range findings {
		if f.Gated && f.Outcome != gate.NotAvailable {
			changes = append(changes, fmt.Sprintf("%s %s", f.Label, creepFigure(f, f.Change, "%+.2f pp", "%+.1f %%")))
		}
	}
	return fmt.Sprintf("Against %s (%d runs): %s.", name, runs, strings.Join(changes, ", "))
}

// CreepWarning is the warning of a gated metric beyond its floor the bad way against name, of runs runs.
func CreepWarning(name string, runs int, f gate.Finding) string {
	unit := map[bool]string{true: "/s", false: " " + f.Unit}[f.Unit == "/s"]
	return fmt.Sprintf("creep: %s is %s worse than at %s (%d runs): %.4g%s → %.4g%s, beyond its floor, though the changes since may each have passed",
		f.Label, creepFigure(f, f.Worse, "%.2f pp", "%.1f %%"), name, runs, f.BaseMedian, unit, f.HeadMedian, unit)
}

// CreepUnread is the note of a tag's creep the history could not be read for.
func CreepUnread(glob string, err error) string {
	return fmt.Sprintf("Creep against tag %s: the history could not be read (%v).", glob, err)
}

func creepFigure(f gate.Finding, v float64, pp, pct string) string {
	if f.Percent {
		return fmt.Sprintf(pp, v)
	}
	return fmt.Sprintf(pct, v)
}

// TrustedPolicy is where a pull request's gate policy came from (pipeline.TrustBase): the base commit's file (Where),
// with the benchmark itself when Whole, and what the pull request changes of it: the policy's keys (Changed), the
// procedure's (Procedure, when Whole), or the definition's (Definition, when not Whole and it changed).
type TrustedPolicy struct {
	Where, HeadPath                string
	Whole                          bool
	Changed, Procedure, Definition []string
}

// OwnReason says why the pull request's own policy applies after all:
// the base commit has no such file (err nil), or it does not load (err).
func (t TrustedPolicy) OwnReason(err error) string {
	own := map[bool]string{true: "the gate's policy and the benchmark are this pull request's own", false: "the gate's policy is this pull request's own"}[t.Whole]
	if err == nil {
		return fmt.Sprintf("%s does not exist, so %s (%s)", t.Where, own, t.HeadPath)
	}
	return fmt.Sprintf("%s does not load with this tailgate (%v), so %s (%s)", t.Where, err, own, t.HeadPath)
}

// Notes say where the policy (and with Whole the benchmark) came from, and what the pull request changes of it.
func (t TrustedPolicy) Notes() []string {
	notes := []string{"The gate's policy (gate: baseline, floors, metrics, min_effect, alpha, window; " +
		"the A/B budget ab.min_blocks, ab.max_blocks, ab.max_time; load.runs; the credentials pass_env gives the benchmark) comes from " +
		t.Where + ", which the pull request cannot edit; the benchmark itself is the pull request's (benchmark_from: head trusts the pull request)."}
	if t.Whole {
		notes[0] = "The gate's policy (gate:, the A/B budget, load.runs, pass_env) and the benchmark itself (how each side is built, started, " +
			"reset, loaded and measured: build, target, ab, dataset, drain, setup, feed, load, scenarios) come from " + t.Where +
			", which the pull request cannot edit; both the base and the head are measured with it."
	}
	for i, changed := range [][]string{t.Changed, t.Procedure, t.Definition} {
		if len(changed) > 0 {
			notes = append(notes, fmt.Sprintf([...]string{
				"This PR changes the gate's policy; it applies after merge (changed: %s). This check is judged by the policy of %s.",
				"This PR changes the benchmark (changed: %s): it is judged with the base's, and yours applies after merge. " +
					"The head (and in mode ab the base) was built, started and measured with the benchmark of %s.",
				"This PR changes the benchmark itself (changed: %s): what is measured is the pull request's own. " +
					"A baseline recorded with the benchmark of %s is not compared with it (the check is inconclusive); " +
					"fail_on_inconclusive: true fails such a PR, and mode: ab judges it by running the PR's benchmark on both builds.",
			}[i], strings.Join(changed, ", "), t.Where))
		}
	}
	return notes
}

// PhaseLogins are the logins of one phase (Name "" for the load) for its workers, the open model's when Open.
type PhaseLogins struct {
	Name            string
	Logins, Workers int
	Open            bool
}

// SetupCost says what the setup steps cost in logins: each phase's, setup.run once per run and phase (setupRun), per
// job of runs runs, and in A/B (maxBlocks above 0) per block, the phases sharing the first block's logins.
func SetupCost(phases []PhaseLogins, setupRun bool, runs, maxBlocks int) string {
	var parts []string
	perRun, users := 0, 0
	for _, ph := range phases {
		perRun, users = perRun+ph.Logins, max(users, ph.Logins)
		if ph.Logins == 0 {
			continue
		}
		who, name := "one per virtual user", "load"
		if ph.Open {
			who = fmt.Sprintf("for %d open-model workers", ph.Workers)
		}
		if ph.Name != "" {
			name = "phase " + ph.Name
		}
		parts = append(parts, fmt.Sprintf("%s %d, %s", name, ph.Logins, who))
	}
	s := fmt.Sprintf("%d setup.vu %s per run", perRun, pl.Of(perRun, "login", "logins"))
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, "; ") + ")"
	}
	if setupRun {
		s += fmt.Sprintf(" and setup.run once per run and phase (%d)", len(phases))
	}
	s += fmt.Sprintf(", %d in %d runs", perRun*runs, runs)
	if maxBlocks > 0 && perRun > 0 {
		s += fmt.Sprintf("; A/B: %d in the first block (both sides; the phases share their users' logins), then none while the service keeps its sessions across a reset and a restart (checked in each phase's warm-up), else up to %d per block and %d in %d blocks",
			2*users, 2*perRun, 2*perRun*maxBlocks, maxBlocks)
	}
	return s
}

// ApartReason says why an A/B job's blocks are pairs of whole runs, or why every phase alternates between the sides.
func ApartReason(a result.Apart) string {
	return [...]string{result.RecordBase: "--record-base stores the base's runs in a baseline, whose samples are whole runs of one side alone",
		result.CommandLoad: "the load tool (load.engine: command) makes a whole run each time it is started",
		result.FixedAddress: fmt.Sprintf("both sides are started on %s, one fixed address, and a block runs them at the same time (write %s in the url and the start command to give each side a free port)",
			a.At, config.PortPlaceholder),
		result.OneProcess: "one process stands on both sides (an A/A job with ab.restart: never)",
		result.SameTarget: "both sides are the same target (" + a.At + ")",
		result.SamePart:   fmt.Sprintf("both sides measure the same part %q of the request path (target.measure), whose work cannot be told apart by side while both are loaded", a.At)}[a.Why]
}

// EnvText says what changed between jobs besides the code.
func EnvText(e gate.EnvChange) string {
	at := " (at " + cmp.Or(shortSHA(e.Commit), "job "+e.Job) + ")"
	switch e.What {
	case "definition":
		return "benchmark definition changed" + at
	case "runner":
		return fmt.Sprintf("runner image %s → %s%s", cmp.Or(e.From, "unknown"), cmp.Or(e.To, "unknown"), at)
	}
	return fmt.Sprintf("%s %s → %s%s", map[string]string{"machine": "machine", "tool": "measured by"}[e.What], e.From, e.To, at)
}

// StoredBaseline says where a stored baseline came from and what it
// holds, if found.
func StoredBaseline(src string, found bool, samples, jobs int) string {
	if !found {
		return "none yet (" + src + ")"
	}
	return fmt.Sprintf("%s (%d %s from %d %s)", src, samples, pl.Of(samples, "sample", "samples"), jobs, pl.Of(jobs, "job", "jobs"))
}
