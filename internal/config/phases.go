package config

import "time"

// PhaseLoad is one phase of a run as the generator offers it: the load
// section with the phase's model keys (Name "" without phases).
type PhaseLoad struct {
	Name string
	Load Load
}

// RunPhases are load.phases, or the load section as one unnamed phase.
func (l Load) RunPhases() []PhaseLoad {
	if len(l.Phases) == 0 {
		return []PhaseLoad{{Load: l}}
	}
	out := make([]PhaseLoad, len(l.Phases))
	for i, p := range l.Phases {
		out[i] = PhaseLoad{Name: p.Name, Load: p.load(l)}
	}
	return out
}

// load is the load section with the phase's model keys in place of its own.
func (p Phase) load(top Load) Load {
	l := top
	l.Phases = nil
	l.Model, l.Rate, l.RampFrom, l.Ramp, l.MaxInflight = p.Model, p.Rate, p.RampFrom, p.Ramp, p.MaxInflight
	l.VUs, l.Think, l.Warmup, l.Duration = p.VUs, p.Think, p.Warmup, p.Duration
	return l
}

// RunTime is how long one run offers load: every phase's warm-up and
// measured window (resets, verifies and drains not counted).
func (l Load) RunTime() time.Duration {
	var d time.Duration
	for _, p := range l.RunPhases() {
		d += p.Load.Warmup.D() + p.Load.Duration.D()
	}
	return d
}

func (l *Load) SetDuration(d Duration) {
	l.Duration = d
	for i := range l.Phases {
		l.Phases[i].Duration = d
	}
}

func (l *Load) SetWarmup(d Duration) {
	l.Warmup = d
	for i := range l.Phases {
		l.Phases[i].Warmup = d
	}
}
