package stats

import (
	"math"
	"slices"
)

// The mean at the look that stopped a sequential job over-reads the
// effect (a +34 % build stopped at the first look read +37 … +49 %).
// MedianUnbiased corrects it by the stagewise ordering (Jennison &
// Turnbull 2000, ch. 8.4): the estimate is the θ at which
//
//	P_θ(stopped for a regression at a look before m) + P_θ(reached m with a mean ≥ the observed) = ½,
//
// computed by recursive numerical integration of the running sum
// (Armitage, McPherson & Rowe 1969) with the look's spread as the truth.

// adjustGrid is the spacing of the integration grid, in units of the
// spread: a Gaussian sampled this finely sums exactly (the trapezoid
// rule's error is of order exp(−2π²/h²)); a boundary is placed within a
// cell by splitting the cell's mass linearly.
const adjustGrid = 0.5

// MedianUnbiased is the median-unbiased estimate of the effect after the
// look dec (of k gated metrics), on the comparison scale; dec.Estimate
// when nothing can be corrected. It costs a few milliseconds: call it
// once, for the look a report shows.
func (d SeqDesign) MedianUnbiased(dec SeqDecision, k int) float64 {
	d = d.WithDefaults()
	// The look's boundaries are those of the prior it pooled.
	d.Prior = SeqPrior{SD: 1, DF: dec.PriorDF}
	m, sd := dec.Blocks, dec.Spread
	if m < d.MinBlocks || !(sd > 0) || math.IsInf(sd, 0) || math.IsNaN(dec.Estimate) {
		return dec.Estimate
	}
	looks := d.earlierStops(m, k, dec.Threshold, sd)
	if len(looks) == 0 {
		return dec.Estimate
	}
	h := adjustGrid * math.Max(1, math.Sqrt(float64(m)/100))
	target := dec.Estimate / sd
	p := func(mu float64) float64 { return upperStagewise(mu, looks, m, target, h) - 0.5 }
	est := solveIncreasing(p, target, 3, 0.01/math.Sqrt(float64(m))) * sd
	// The repeated confidence bounds hold the effect whatever stopped the
	// job; an estimate outside them would contradict them.
	return math.Min(math.Max(est, dec.Lower), dec.Upper)
}

// solveIncreasing is the root of increasing f near x0, within tol: a
// bracket of half-width w (doubled until it holds the root), then regula
// falsi with the Illinois step (a few evaluations where bisection takes 12).
func solveIncreasing(f func(float64) float64, x0, w, tol float64) float64 {
	lo, hi := x0-w, x0+w
	flo, fhi := f(lo), f(hi)
	for i := 0; flo > 0 && i < 8; i++ {
		lo, w = lo-w, 2*w
		flo = f(lo)
	}
	for i := 0; fhi < 0 && i < 8; i++ {
		hi, w = hi+w, 2*w
		fhi = f(hi)
	}
	side := 0
	for range 40 {
		x := hi - fhi*(hi-lo)/(fhi-flo)
		if !(x > lo && x < hi) {
			x = (lo + hi) / 2
		}
		fx := f(x)
		switch {
		case fx < 0:
			lo, flo = x, fx
			if side == -1 {
				fhi /= 2
			}
			side = -1
		default:
			hi, fhi = x, fx
			if side == 1 {
				flo /= 2
			}
			side = 1
		}
		if hi-lo < tol || fx == 0 {
			return x
		}
	}
	return (lo + hi) / 2
}

// stopLook is an earlier look's stopping region on the mean, in spreads:
// above reg a regression, below pass a pass.
type stopLook struct {
	n         int
	reg, pass float64
}

// earlierStops are the looks before m that could stop the job, with the
// regions of the rule (decide) at spread sd.
func (d SeqDesign) earlierStops(m, k int, thr, sd float64) []stopLook {
	var out []stopLook
	sch := d.schedule()
	for n := d.MinBlocks; n < m; n++ {
		if !sch.isLook(n) {
			continue
		}
		cLow, cUp := d.critical(n, k, false)
		root := math.Sqrt(float64(n))
		reg := thr/sd + cLow/root
		if d.Rule == RuleChangeBeyond {
			reg = math.Max(cLow/root, d.regressionMean(thr)/sd)
		}
		pass := thr/sd - cUp/root
		if math.IsInf(cUp, 1) {
			pass = math.Inf(-1)
		}
		if math.IsInf(reg, 1) && math.IsInf(pass, -1) {
			continue
		}
		out = append(out, stopLook{n: n, reg: reg, pass: pass})
	}
	return out
}

// upperStagewise is P_μ(stopped for a regression at one of looks, or
// reached m with a mean ≥ target), for units of mean μ and spread 1,
// integrating the running sum on a grid of spacing h.
func upperStagewise(mu float64, looks []stopLook, m int, target, h float64) float64 {
	const width = 6.5 // one unit's kernel loses under 1e-12 of its mass
	k0 := int(math.Floor((mu - width) / h))
	kernel := make([]float64, int(math.Ceil(2*width/h))+2)
	for i := range kernel {
		kernel[i] = h * normalPDF(float64(k0+i)*h-mu)
	}
	// dens[i] is the running sum's density at (off+i)·h over the paths running.
	dens, off := slices.Clone(kernel), k0
	upper, li := 0.0, 0
	for n := 1; n <= m; n++ {
		if n > 1 {
			dens, off = convolve(dens, off, kernel, k0)
		}
		if n == m {
			return upper + above(dens, off, h, target*float64(n))
		}
		if li < len(looks) && looks[li].n == n {
			lk := looks[li]
			li++
			upper += above(dens, off, h, lk.reg*float64(n))
			dens, off = between(dens, off, h, lk.pass*float64(n), lk.reg*float64(n))
			if len(dens) == 0 {
				return upper
			}
		}
	}
	return upper
}

// share is the part of the cell at s (width h) above the level x.
func share(s, h, x float64) float64 {
	return math.Min(1, math.Max(0, (s+h/2-x)/h))
}

// above is the mass of the density above the sum x.
func above(dens []float64, off int, h, x float64) float64 {
	total := 0.0
	for i, f := range dens {
		total += f * share(float64(off+i)*h, h, x)
	}
	return total
}

// between is the density restricted to sums between lo and hi (its
// boundary cells split), with its new offset.
func between(dens []float64, off int, h, lo, hi float64) ([]float64, int) {
	out := make([]float64, 0, len(dens))
	first := -1
	for i, f := range dens {
		s := float64(off+i) * h
		w := share(s, h, lo) - share(s, h, hi)
		if w <= 0 {
			if first >= 0 {
				break
			}
			continue
		}
		if first < 0 {
			first = i
		}
		out = append(out, f*w)
	}
	return out, off + first
}

// convolve adds one unit: the density dens (offset off) convolved with
// the kernel (offset k0), dropping the negligible tails.
func convolve(dens []float64, off int, kernel []float64, k0 int) ([]float64, int) {
	out := make([]float64, len(dens)+len(kernel)-1)
	for i, f := range dens {
		for j, g := range kernel {
			out[i+j] += f * g
		}
	}
	const tail = 1e-15 // invisible to the estimate; cut, so the grid does not grow every unit
	first, last := 0, len(out)-1
	for first < last && out[first] < tail {
		first++
	}
	for last > first && out[last] < tail {
		last--
	}
	return out[first : last+1], off + k0 + first
}

func normalPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
