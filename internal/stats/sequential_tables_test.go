package stats

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// seqTables turns on the long simulation tables (about a minute):
//
//	go test -run SequentialTables -v ./internal/stats -args -seq.tables
var seqTables = flag.Bool("seq.tables", false, "print the long simulation tables of the sequential A/B rule")

const tableJobs = 10_000

// TestSequentialTables prints the tables behind the defaults of SeqDesign
// and the recommendations to the runner (restarts, order) and the gate
// (min_effect per metric kind).
func TestSequentialTables(t *testing.T) {
	if !*seqTables {
		t.Skip("long tables: add -args -seq.tables")
	}
	var out strings.Builder
	tableDesigns(&out)
	tableKinds(&out)
	tableRestarts(&out)
	tableRobustness(&out)
	tableRules(&out)
	tableAdvice(&out)
	tableLooking(&out)
	t.Log("\n" + out.String())
}

// jobCaught simulates jobs of one regressed metric among k (the others
// A/A with the same noise) and counts jobs that fail on that metric.
func jobCaught(seed uint64, jobs int, d SeqDesign, hit gateCase, k int) (caught float64, pairs tally) {
	rng := rand.New(rand.NewPCG(seed, 0x10b))
	cases := repeat(hit, k)
	for i := 1; i < k; i++ {
		cases[i].effect = 0
	}
	n := 0
	for range jobs {
		r := simulateJob(rng, d, cases, k)
		pairs.add(r)
		if r.metrics[0].Outcome == SeqRegression {
			n++
		}
	}
	return float64(n) / float64(jobs), pairs
}

func tableDesigns(out *strings.Builder) {
	fmt.Fprintf(out, "\n## Design choices: a job of %d metrics, run CV 3 %% (pair noise 4.2 %%) unless noted, min_effect 5 %%, %d jobs each\n", gateMetrics, tableJobs/2)
	fmt.Fprintln(out, "| rho | every | min | beta | budget | A/A: false alarm · pass · pairs | +10 % in 1 of 6: caught · pairs | +20 %: pairs | CV 10 %, +10 %: caught | CV 10 %, +20 %: caught |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
	seed := uint64(1000)
	for _, rho := range []float64{1, 2, 3} {
		for _, every := range []int{1, 2, 4} {
			for _, min := range []int{4, 6} {
				for _, beta := range []float64{0.05, 0.10} {
					if (every != 1 || min != 4) && beta != 0.05 {
						continue
					}
					d := SeqDesign{Rho: rho, Every: every, MinBlocks: min, Beta: beta}
					fmt.Fprintf(out, "| %.0f | %d | %d | %.2f | %d | %s |\n", rho, every, min, beta, 20, designRow(&seed, d))
				}
			}
		}
	}
	for _, budget := range []int{12, 30, 40} {
		d := SeqDesign{MaxBlocks: budget}
		fmt.Fprintf(out, "| %.0f | %d | %d | %.2f | %d | %s |\n", float64(DefaultSeqRho), 1, 4, DefaultSeqBeta, budget, designRow(&seed, d))
	}
}

func designRow(seed *uint64, d SeqDesign) string {
	next := func() uint64 { *seed++; return *seed }
	jobs := tableJobs / 2
	aa := runJobs(next(), jobs, d, repeat(ratioCase(0.03, 0, 0.05), gateMetrics), gateMetrics)
	caught, p10 := jobCaught(next(), jobs, d, ratioCase(0.03, 0.10, 0.05), gateMetrics)
	_, p20 := jobCaught(next(), jobs, d, ratioCase(0.03, 0.20, 0.05), gateMetrics)
	noisy10, _ := jobCaught(next(), jobs, d, ratioCase(0.10, 0.10, 0.05), gateMetrics)
	noisy20, _ := jobCaught(next(), jobs, d, ratioCase(0.10, 0.20, 0.05), gateMetrics)
	return fmt.Sprintf("%.2f %% · %.1f %% · %.1f | %.1f %% · %.1f | %.1f | %.1f %% | %.1f %%",
		100*aa.rate(aa.regression), 100*aa.rate(aa.pass), aa.meanPairs(), 100*caught, p10.meanPairs(), p20.meanPairs(), 100*noisy10, 100*noisy20)
}

// metricKind is a gated metric with the noise it typically has in CI and
// the min_effect proposed for it.
type metricKind struct {
	name      string
	world     pairWorld
	minEffect float64 // user units: a fraction for ratios, pp for rates
	effects   []float64
	rate      bool
}

func (m metricKind) gate(effect float64) gateCase {
	if m.rate {
		return gateCase{world: m.world, effect: effect, minEffect: m.minEffect, resolution: 0.1}
	}
	return gateCase{world: m.world, effect: logPct(effect), minEffect: logPct(m.minEffect), resolution: resolution}
}

func (m metricKind) unit(x float64) string {
	if m.rate {
		return fmt.Sprintf("+%.1f pp", x)
	}
	return fmt.Sprintf("+%.0f %%", 100*x)
}

func tableKinds(out *strings.Builder) {
	ratio := []float64{0.05, 0.10, 0.20}
	kinds := []metricKind{
		{name: "throughput, run CV 2 %", world: pairWorld{cv: 0.02, drift: 0.08}, minEffect: 0.05, effects: ratio},
		{name: "throughput, run CV 5 %", world: pairWorld{cv: 0.05, drift: 0.20}, minEffect: 0.05, effects: ratio},
		{name: "throughput, run CV 10 %", world: pairWorld{cv: 0.10, drift: 0.40}, minEffect: 0.05, effects: ratio},
		{name: "CPU/iteration, CV 2 %, bias 5 %, restart every pair", world: pairWorld{cv: 0.02, drift: 0.08, bias: 0.05, restart: 1}, minEffect: 0.05, effects: ratio},
		{name: "CPU/iteration, CV 5 %, bias 5 %, restart every pair", world: pairWorld{cv: 0.05, drift: 0.20, bias: 0.05, restart: 1}, minEffect: 0.05, effects: ratio},
		{name: "p95, run CV 5 %", world: pairWorld{cv: 0.05, drift: 0.20}, minEffect: 0.10, effects: []float64{0.10, 0.20, 0.40}},
		{name: "p95, run CV 10 %", world: pairWorld{cv: 0.10, drift: 0.40}, minEffect: 0.10, effects: []float64{0.10, 0.20, 0.40}},
		{name: "p95, run CV 20 %", world: pairWorld{cv: 0.20, drift: 0.80}, minEffect: 0.10, effects: []float64{0.10, 0.20, 0.40}},
		{name: "error rate 0.2 %, 2000 requests/run", world: pairWorld{requests: 2000, baseRate: 0.2, drift: 0.5}, minEffect: 1, effects: []float64{0.5, 1, 2}, rate: true},
		{name: "error rate 2 %, 2000 requests/run", world: pairWorld{requests: 2000, baseRate: 2, drift: 0.5}, minEffect: 1, effects: []float64{0.5, 1, 2}, rate: true},
	}
	for _, budget := range []int{20, 40} {
		d := SeqDesign{MaxBlocks: budget}
		fmt.Fprintf(out, "\n## Metric kinds, budget %d pairs, judged as 1 of %d metrics, %d jobs per cell (regression / pass / inconclusive %%, pairs mean [min–max])\n", budget, gateMetrics, tableJobs)
		fmt.Fprintln(out, "| metric | min_effect | A/A | effect 1 | effect 2 | effect 3 | detects ≥ (80 %) |")
		fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
		for i, m := range kinds {
			cells := []string{cell(runJobs(uint64(2000+100*budget+10*i), tableJobs, d, []gateCase{m.gate(0)}, gateMetrics), "A/A")}
			for j, eff := range m.effects {
				cells = append(cells, cell(runJobs(uint64(2000+100*budget+10*i+j+1), tableJobs, d, []gateCase{m.gate(eff)}, gateMetrics), m.unit(eff)))
			}
			fmt.Fprintf(out, "| %s | %s | %s | %s |\n", m.name, strings.TrimPrefix(m.unit(m.minEffect), "+"), strings.Join(cells, " | "), detectsFor(d, m))
		}
	}
}

// detectsFor is the design's detectable effect at the kind's true pair
// spread (measured from 20,000 simulated A/A pairs).
func detectsFor(d SeqDesign, m metricKind) string {
	rng := rand.New(rand.NewPCG(77, 77))
	src := m.world.job(rng, 0)
	x := make([]float64, 20_000)
	for i := range x {
		x[i] = src.next()
	}
	g := m.gate(0)
	v, err := d.Detectable(SampleSD(x), g.minEffect, g.resolution, gateMetrics)
	switch {
	case err != nil || math.IsNaN(v):
		return "none"
	case m.rate:
		return fmt.Sprintf("%.2f pp", v)
	default:
		return fmt.Sprintf("%.1f %%", 100*math.Expm1(v))
	}
}

func cell(t tally, label string) string {
	lo, hi := t.pairRange()
	return fmt.Sprintf("%s: %.1f / %.1f / %.1f, %.1f [%d–%d]", label, 100*t.rate(t.regression), 100*t.rate(t.pass), 100*t.rate(t.inco), t.meanPairs(), lo, hi)
}

func tableRestarts(out *strings.Builder) {
	fmt.Fprintf(out, "\n## Process bias and restart cadence: the boundary's level for one metric at α = 5 %% (no pass stopping), %d A/A jobs per cell, budget 20 pairs\n", tableJobs)
	fmt.Fprintln(out, "Bias = sd of the level difference between the two sides' processes, redrawn when both restart. Blocks: pairs averaged per process lifetime, the design counting blocks (min 4, budget 20/r blocks, or 3 blocks of 4).")
	fmt.Fprintln(out, "| run CV (pair noise) | bias | every pair | every 2 | every 4 | every 8 | never | every 2, blocks | every 4, blocks |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|")
	seed := uint64(3000)
	for _, cv := range []float64{0.02, 0.05} {
		for _, bias := range []float64{0.005, 0.01, 0.02, 0.05, 0.08} {
			row := fmt.Sprintf("| %.0f %% (%.1f %%) | %.1f %% |", 100*cv, 100*math.Sqrt2*cv, 100*bias)
			for _, r := range []int{1, 2, 4, 8, 0} {
				seed++
				row += fmt.Sprintf(" %.1f %% |", 100*crossingRate(seed, tableJobs, SeqDesign{}, pairWorld{cv: cv, drift: 4 * cv, bias: bias, restart: r}, 0, 1, 1))
			}
			seed++
			row += fmt.Sprintf(" %.1f %% |", 100*crossingRate(seed, tableJobs, SeqDesign{MaxBlocks: 10}, pairWorld{cv: cv, drift: 4 * cv, bias: bias, restart: 2}, 0, 1, 2))
			seed++
			row += fmt.Sprintf(" %.1f %% |", 100*crossingRate(seed, tableJobs, SeqDesign{MinBlocks: 3, MaxBlocks: 5}, pairWorld{cv: cv, drift: 4 * cv, bias: bias, restart: 4}, 0, 1, 4))
			fmt.Fprintln(out, row)
		}
	}
	fmt.Fprintf(out, "\nPower with bias 5 %% (run CV 2 %%), 1 of %d metrics, min_effect 5 %%, %d jobs: caught / pairs mean\n", gateMetrics, tableJobs)
	fmt.Fprintln(out, "| analysis | +10 % | +20 % |")
	fmt.Fprintln(out, "|---|---|---|")
	for _, a := range []struct {
		name  string
		d     SeqDesign
		r     int
		block int
	}{{"restart every pair, 20 pairs", SeqDesign{}, 1, 1}, {"restart every 2, blocks, 10 blocks = 20 pairs", SeqDesign{MaxBlocks: 10}, 2, 2}, {"restart every 2, blocks, 20 blocks = 40 pairs", SeqDesign{MaxBlocks: 20}, 2, 2}} {
		row := "| " + a.name + " |"
		for _, eff := range []float64{0.10, 0.20} {
			seed++
			w := blockWorld{pairWorld{cv: 0.02, drift: 0.08, bias: 0.05, restart: a.r}, a.block}
			got := runBlockJobs(seed, tableJobs, a.d, w, logPct(eff))
			row += fmt.Sprintf(" %.1f %%, %.1f pairs |", 100*got.rate(got.regression), float64(a.block)*got.meanPairs())
		}
		fmt.Fprintln(out, row)
	}
}

// blockWorld feeds the design one mean per block of pairs.
type blockWorld struct {
	w     pairWorld
	block int
}

func runBlockJobs(seed uint64, jobs int, d SeqDesign, bw blockWorld, effect float64) tally {
	rng := rand.New(rand.NewPCG(seed, 0xb10c))
	d = d.WithDefaults()
	var t tally
	for range jobs {
		src := bw.w.job(rng, effect)
		var units []float64
		for n := 1; n <= d.MaxBlocks; n++ {
			var s float64
			for range bw.block {
				s += src.next()
			}
			units = append(units, s/float64(bw.block))
			dec, _ := d.look(units, minEffect5, resolution, gateMetrics, false, false)
			if dec.Decided() {
				t.add(seqResult{outcome: dec.Outcome, pairs: n})
				break
			}
		}
	}
	return t
}

func tableRobustness(out *strings.Builder) {
	fmt.Fprintf(out, "\n## Heavier tails and hiccups: boundary level (one metric, α = 5 %%, no pass stopping) and an A/A job of %d metrics, %d jobs\n", gateMetrics, tableJobs)
	fmt.Fprintln(out, "| run noise | CV | level | A/A job: false alarm · pass · pairs | +10 %: caught · pairs |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	seed := uint64(4000)
	for _, cv := range []float64{0.03, 0.05} {
		for _, c := range []struct {
			name string
			w    pairWorld
		}{
			{"normal", pairWorld{}},
			{"Student t 5 df", pairWorld{tails: 5}},
			{"Student t 3 df", pairWorld{tails: 3}},
			{"5 % of runs +30 %", pairWorld{outlier: 0.05, hiccup: 0.3}},
			{"1 % of runs +100 %", pairWorld{outlier: 0.01, hiccup: math.Log(2)}},
			{"10 % of runs +10 %", pairWorld{outlier: 0.10, hiccup: 0.10}},
		} {
			w := c.w
			w.cv, w.drift = cv, 4*cv
			seed += 3
			level := crossingRate(seed, 2*tableJobs, SeqDesign{}, w, 0, 1, 1)
			gc := gateCase{world: w, minEffect: minEffect5, resolution: resolution}
			aa := runJobs(seed+1, tableJobs, SeqDesign{}, repeat(gc, gateMetrics), gateMetrics)
			gc.effect = logPct(0.10)
			hit := runJobs(seed+2, tableJobs, SeqDesign{}, []gateCase{gc}, gateMetrics)
			fmt.Fprintf(out, "| %s | %.0f %% | %.2f %% | %.2f %% · %.1f %% · %.1f | %.1f %% · %.1f |\n", c.name, 100*cv, 100*level,
				100*aa.rate(aa.regression), 100*aa.rate(aa.pass), aa.meanPairs(), 100*hit.rate(hit.regression), hit.meanPairs())
		}
	}
}

func tableRules(out *strings.Builder) {
	fmt.Fprintf(out, "\n## Regression rule: lower>0 & estimate>min_effect/2 (default) vs lower>min_effect; 1 of %d metrics, min_effect 5 %%, %d jobs: regression %% (pairs mean)\n", gateMetrics, tableJobs)
	fmt.Fprintln(out, "| pair noise | rule | budget | A/A | +2.5 % | +5 % | +7.5 % | +10 % | +15 % | +20 % |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
	seed := uint64(5000)
	for _, pn := range []float64{0.03, 0.05, 0.07} {
		for _, rule := range []SeqRule{RuleChangeBeyond, RuleBoundBeyond} {
			for _, budget := range []int{20, 40} {
				row := fmt.Sprintf("| %.0f %% | %s | %d |", 100*pn, ruleName(rule), budget)
				for _, eff := range []float64{0, 0.025, 0.05, 0.075, 0.10, 0.15, 0.20} {
					seed++
					got := runJobs(seed, tableJobs, SeqDesign{Rule: rule, MaxBlocks: budget}, []gateCase{ratioCase(pn/math.Sqrt2, eff, 0.05)}, gateMetrics)
					row += fmt.Sprintf(" %.1f (%.1f) |", 100*got.rate(got.regression), got.meanPairs())
				}
				fmt.Fprintln(out, row)
			}
		}
	}
}

// tableAdvice checks "more pairs would likely decide": inconclusive jobs
// continue on the same stream of pairs under a design whose budget is the
// projection (rounded up to 10), and the table counts those that decide.
func tableAdvice(out *strings.Builder) {
	fmt.Fprintln(out, "\n## \"More pairs would likely decide\": inconclusive jobs at 20 pairs re-judged with the projected budget (rounded up to 10, ≤ 200), one metric, K = 1")
	fmt.Fprintln(out, "| run CV | effect | jobs | inconclusive | projected more pairs, median | projection ≤ 180 | of those, decided with it |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	d := SeqDesign{}
	rng := rand.New(rand.NewPCG(6000, 1))
	for _, cv := range []float64{0.05, 0.08} {
		for _, eff := range []float64{0, 0.03, 0.08, 0.12} {
			inco, within, decided := 0, 0, 0
			var more []float64
			const jobs = 2000
			for range jobs {
				src := pairWorld{cv: cv, drift: 4 * cv}.job(rng, logPct(eff))
				var diffs []float64
				var dec SeqDecision
				for n := 1; n <= d.WithDefaults().MaxBlocks; n++ {
					diffs = append(diffs, src.next())
					if dec, _ = d.look(diffs, minEffect5, resolution, 1, false, false); dec.Decided() {
						break
					}
				}
				if dec.Outcome != SeqInconclusive {
					continue
				}
				inco++
				more = append(more, float64(dec.MoreBlocks))
				if dec.MoreBlocks == 0 || dec.MoreBlocks > 180 {
					continue
				}
				within++
				budget := int(math.Ceil(float64(dec.Blocks+dec.MoreBlocks)/10) * 10)
				for len(diffs) < budget {
					diffs = append(diffs, src.next())
				}
				longer := SeqDesign{MaxBlocks: budget}
				for n := longer.WithDefaults().MinBlocks; n <= budget; n++ {
					if dd, _ := longer.look(diffs[:n], minEffect5, resolution, 1, false, false); dd.Decided() {
						if dd.Outcome != SeqInconclusive {
							decided++
						}
						break
					}
				}
			}
			fmt.Fprintf(out, "| %.0f %% | +%.0f %% | %d | %d | %.0f | %d | %d (%.0f %%) |\n", 100*cv, 100*eff, jobs, inco, Median(more), within, decided, 100*float64(decided)/float64(max(within, 1)))
		}
	}
}

// tableLooking contrasts the boundary with looking naively (a
// fixed-sample t test after every pair) and with a mixture SPRT whose σ is
// estimated from the pairs so far.
func tableLooking(out *strings.Builder) {
	fmt.Fprintf(out, "\n## Why a boundary: one-sided false-alarm rate of one A/A metric over looks 4…budget, %d jobs, run CV 3 %%\n", tableJobs)
	fmt.Fprintln(out, "| budget | level | sequential t boundary | fixed t test at every look | mixture SPRT, plug-in σ, τ = 5 % |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	w := pairWorld{cv: 0.03, drift: 0.12}
	seed := uint64(7000)
	for _, budget := range []int{10, 20, 40} {
		for _, level := range []float64{0.05, 0.05 / 6} {
			seed++
			d := SeqDesign{MaxBlocks: budget}
			k := int(math.Round(0.05 / level))
			fmt.Fprintf(out, "| %d | %.2f %% | %.2f %% | %.2f %% | %.2f %% |\n", budget, 100*level,
				100*crossingRate(seed, tableJobs, d, w, 0, k, 1), 100*naiveRate(seed, tableJobs, d, w, level), 100*msprtRate(seed, tableJobs, d, w, level, minEffect5))
		}
	}
}

// msprtRate is the false-alarm rate of the normal mixture SPRT of Johari,
// Pekelis & Walsh with the variance replaced by the sample variance of
// the pairs so far (one-sided: only a positive mean rejects).
func msprtRate(seed uint64, jobs int, d SeqDesign, w pairWorld, a, tau float64) float64 {
	return rejectionRate(seed, jobs, d, w, 0, 1, func(units []float64) bool {
		mean, v := Mean(units), sq(SampleSD(units))
		n, t2 := float64(len(units)), tau*tau
		logLambda := 0.5*math.Log(v/(v+n*t2)) + n*n*t2*mean*mean/(2*v*(v+n*t2))
		return mean > 0 && logLambda >= math.Log(1/a)
	})
}
