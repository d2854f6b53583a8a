package result

import (
	"maps"
	"slices"
	"strings"
)

// PathCPUPerIteration is the whole request path's CPU per iteration,
// present only when the target and every part (target.measure) were measured.
const PathCPUPerIteration = "path_cpu_ms_per_iteration"

// TargetPart is the name of the target's own part (its /proc figures
// beside its CPU, which Resources holds).
const TargetPart = "target"

// Prefixes of the footprint's keys: part.<part>.<figure>, counter.<source>.<counter>.
const (
	PartPrefix    = "part."
	CounterPrefix = "counter."
)

// Part is what one part of the request path (the target's process tree,
// a database server's processes, a cgroup) used over a measured window:
// Totals by figure name (Figure*); a figure not read is absent, never zero.
type Part struct {
	Name      string             `json:"name"`
	Totals    map[string]float64 `json:"totals,omitempty"`
	Processes int                `json:"processes,omitempty"`
}

// The figures of a Part: counts and bytes become per-iteration metrics
// (part.<name>.<figure>_per_iteration), CPU ms per iteration, peak MB.
const (
	FigureUserCPU     = "user_cpu_s"
	FigureSystemCPU   = "system_cpu_s"
	FigurePeakRSS     = "peak_rss_bytes"
	FigureReadBytes   = "read_bytes"  // from storage (/proc io read_bytes, cgroup io.stat rbytes)
	FigureWriteBytes  = "write_bytes" // to storage
	FigureRChar       = "rchar"       // read by read(2) and the like, cache or not
	FigureWChar       = "wchar"
	FigureSyscR       = "syscr" // read system calls
	FigureSyscW       = "syscw"
	FigureVolCtxt     = "voluntary_ctxt_switches"
	FigureMinorFaults = "minor_faults"
	FigureMajorFaults = "major_faults"
	// FigureServerCPU is the CPU of the whole tree a part's processes
	// belong to (a database server's, ended backends included).
	FigureServerCPU = "server_cpu_s"
)

// countFigures are the figures reported per iteration, in report order.
var countFigures = []string{FigureSyscR, FigureSyscW, FigureRChar, FigureWChar, FigureReadBytes, FigureWriteBytes,
	FigureVolCtxt, FigureMinorFaults, FigureMajorFaults}

// Part figure suffixes of the metric keys.
const (
	partCPU       = "cpu_ms_per_iteration"
	partUserCPU   = "user_cpu_ms_per_iteration"
	partSystemCPU = "system_cpu_ms_per_iteration"
	partPeakRSS   = "peak_rss_mb"
	partServerCPU = "server_cpu_ms_per_iteration"
	partShare     = "cpu_attributed_pct"
	perIteration  = "_per_iteration"
)

// PartKey is the metric key of a part's figure, e.g. part.postgres.cpu_ms_per_iteration.
func PartKey(part, metric string) string { return PartPrefix + part + "." + metric }

// PartCPUKey is the key of a part's CPU per iteration (user + system).
func PartCPUKey(part string) string { return PartKey(part, partCPU) }

// PartShareKey is the key of the share a part's processes had of their
// server's CPU, in percent.
func PartShareKey(part string) string { return PartKey(part, partShare) }

func PartOfShareKey(key string) (part string, ok bool) {
	rest, prefixed := strings.CutPrefix(key, PartPrefix)
	part, ok = strings.CutSuffix(rest, "."+partShare)
	return part, prefixed && ok && part != "" && !strings.Contains(part, ".")
}

func CounterKey(source, counter string) string { return CounterPrefix + source + "." + counter }

// partFigures describe a part's metrics by key suffix, their labels
// after the part's name.
var partFigures = map[string]Metric{
	partCPU:       {"", " CPU/iteration", "ms", LowerIsBetter, Ratio},
	partUserCPU:   {"", " user CPU/iteration", "ms", LowerIsBetter, Ratio},
	partSystemCPU: {"", " system CPU/iteration", "ms", LowerIsBetter, Ratio},
	partPeakRSS:   {"", " peak RSS", "MB", LowerIsBetter, Ratio},
	partServerCPU: {"", " server CPU/iteration", "ms", LowerIsBetter, Ratio},
	partShare:     {"", " share of its server's CPU", "%", HigherIsBetter, Percent},
}

// lookupDynamic describes a footprint key: a part's figure or a counter.
func lookupDynamic(key string) (Metric, bool) {
	if rest, ok := strings.CutPrefix(key, CounterPrefix); ok {
		source, counter, ok := strings.Cut(rest, ".")
		if !ok || source == "" || counter == "" {
			return Metric{}, false
		}
		return Metric{key, source + " " + counter, "/iteration", LowerIsBetter, Ratio}, true
	}
	rest, prefixed := strings.CutPrefix(key, PartPrefix)
	part, fig, ok := strings.Cut(rest, ".")
	if !prefixed || !ok || part == "" {
		return Metric{}, false
	}
	if m, ok := partFigures[fig]; ok {
		m.Key, m.Label = key, part+m.Label
		return m, true
	}
	if count, ok := strings.CutSuffix(fig, perIteration); ok && slices.Contains(countFigures, count) {
		return Metric{key, part + " " + count, "/iteration", LowerIsBetter, Ratio}, true
	}
	return Metric{}, false
}

func IsFootprint(key string) bool {
	return strings.HasPrefix(key, PartPrefix) || strings.HasPrefix(key, CounterPrefix) || key == PathCPUPerIteration
}

// Catalogue is every catalogued metric (Metrics) followed by the
// footprint metrics among keys, sorted: the metrics a report or a gate
// goes through, in order.
func Catalogue(keys ...string) []Metric {
	out := slices.Clone(Metrics)
	for _, k := range slices.Compact(slices.Sorted(slices.Values(keys))) {
		if m, ok := lookupDynamic(k); ok {
			out = append(out, m)
		}
	}
	return out
}

func KeysOf(runs ...[]Run) []string {
	keys := map[string]bool{}
	for _, rs := range runs {
		for i := range rs {
			for k := range rs[i].Metrics {
				keys[k] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// summarizeFootprint sets the per-iteration metrics of the run's parts and
// counters, and the whole path's CPU when the target's and every part's
// CPU were measured.
func (r *Run) summarizeFootprint(set func(string, float64)) {
	it := r.Iterations
	if it.Completed <= 0 || it.Counted&CountCompleted == 0 {
		return
	}
	n := float64(it.Completed)
	pathCPU, pathComplete := 0.0, r.Resources != nil && r.Resources.CPUSeconds > 0 && len(r.Parts) > 0
	if pathComplete {
		pathCPU = r.Resources.CPUSeconds
	}
	for _, p := range r.Parts {
		user, uok := p.Totals[FigureUserCPU]
		sys, sok := p.Totals[FigureSystemCPU]
		if uok {
			set(PartKey(p.Name, partUserCPU), user*1000/n)
		}
		if sok {
			set(PartKey(p.Name, partSystemCPU), sys*1000/n)
		}
		if uok && sok {
			set(PartKey(p.Name, partCPU), (user+sys)*1000/n)
		}
		if server, ok := p.Totals[FigureServerCPU]; ok {
			// What the part's processes had of their server's CPU: the rest
			// is the server's other work (other databases, its own
			// processes) and what ended processes did unseen.
			set(PartKey(p.Name, partServerCPU), server*1000/n)
			if uok && sok && server > 0 {
				set(PartKey(p.Name, partShare), min(100, 100*(user+sys)/server))
			}
		}
		if p.Name != TargetPart { // the target's own CPU is Resources'
			pathCPU += user + sys
			pathComplete = pathComplete && uok && sok
		}
		if rss, ok := p.Totals[FigurePeakRSS]; ok && rss > 0 {
			set(PartKey(p.Name, partPeakRSS), rss/(1<<20))
		}
		for _, f := range countFigures {
			if v, ok := p.Totals[f]; ok {
				set(PartKey(p.Name, f+perIteration), v/n)
			}
		}
	}
	if pathComplete {
		set(PathCPUPerIteration, pathCPU*1000/n)
	}
	for k, v := range r.Counters {
		set(CounterPrefix+k, v/n)
	}
}
