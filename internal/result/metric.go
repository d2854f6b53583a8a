package result

import "slices"

type Better int

const (
	HigherIsBetter Better = iota // throughput, success rates
	LowerIsBetter                // latencies, error rates, CPU and memory
)

type Scale int

const (
	Ratio   Scale = iota // strictly positive, compared as ratios (in logs)
	Percent              // shares in 0–100, compared in percentage points
)

type Metric struct {
	Key    string // the key in Run.Metrics and in every JSON file
	Label  string // short human name for tables
	Unit   string // "/s", "ms", "%", "MB"
	Better Better
	Scale  Scale
}

// Metric keys. A run carries only the keys it has measured; an absent key
// means "not available", never zero.
const (
	IterationsPerSec = "iterations_per_s"
	RequestsPerSec   = "requests_per_s"
	LatencyMean      = "latency_mean_ms"
	LatencyP50       = "latency_p50_ms"
	LatencyP90       = "latency_p90_ms"
	LatencyP95       = "latency_p95_ms"
	LatencyP99       = "latency_p99_ms"
	LatencyMax       = "latency_max_ms"
	IterationP50     = "iteration_p50_ms"
	IterationP95     = "iteration_p95_ms"
	IterationP99     = "iteration_p99_ms"
	RequestErrorPct  = "request_error_pct"
	LifecycleSuccess = "lifecycle_success_pct"
	DroppedPct       = "dropped_pct"
	CPUPerIteration  = "cpu_ms_per_iteration"
	PeakRSS          = "peak_rss_mb"
	ScheduleLagP99   = "schedule_lag_p99_ms"
)

// Metrics lists every metric in the order reports show them.
var Metrics = []Metric{
	{IterationsPerSec, "iterations/s", "/s", HigherIsBetter, Ratio},
	{RequestsPerSec, "requests/s", "/s", HigherIsBetter, Ratio},
	{LatencyMean, "latency mean", "ms", LowerIsBetter, Ratio},
	{LatencyP50, "latency p50", "ms", LowerIsBetter, Ratio},
	{LatencyP90, "latency p90", "ms", LowerIsBetter, Ratio},
	{LatencyP95, "latency p95", "ms", LowerIsBetter, Ratio},
	{LatencyP99, "latency p99", "ms", LowerIsBetter, Ratio},
	{LatencyMax, "latency max", "ms", LowerIsBetter, Ratio},
	{IterationP50, "iteration p50", "ms", LowerIsBetter, Ratio},
	{IterationP95, "iteration p95", "ms", LowerIsBetter, Ratio},
	{IterationP99, "iteration p99", "ms", LowerIsBetter, Ratio},
	{RequestErrorPct, "request errors", "%", LowerIsBetter, Percent},
	{LifecycleSuccess, "lifecycle success", "%", HigherIsBetter, Percent},
	{DroppedPct, "dropped", "%", LowerIsBetter, Percent},
	{CPUPerIteration, "CPU/iteration", "ms", LowerIsBetter, Ratio},
	{PeakRSS, "peak RSS", "MB", LowerIsBetter, Ratio},
	{ScheduleLagP99, "schedule lag p99", "ms", LowerIsBetter, Ratio},
	{PathCPUPerIteration, "path CPU/iteration", "ms", LowerIsBetter, Ratio},
}

// Lookup returns the description of a metric key: a catalogued one, or a
// footprint key naming a part's figure or a counter (footprint.go).
func Lookup(key string) (Metric, bool) {
	if i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Key == key }); i >= 0 {
		return Metrics[i], true
	}
	return lookupDynamic(key)
}
