package result

// Duet is what an A/B job's first block found of a closed phase measured
// both ways, its window pairs alternating and at once: Inflation is each
// side's mean log CPU per iteration at once less alternating (base,
// head), Shift the log head-to-base ratio of iterations/s at once less
// alternating, which counts where Throughput (iterations/s is gated);
// Measured is false where a side had no CPU per iteration to compare.
// AtOnce says whether the later blocks loaded both sides at once,
// Tolerance the largest |Inflation| and |Shift| that allowed it.
type Duet struct {
	Phase            string
	AtOnce, Measured bool
	Throughput       bool
	Inflation        [2]float64
	Shift, Tolerance float64
}

// Apart is why an A/B job's blocks are pairs of whole runs (RecordBase, CommandLoad, FixedAddress) or why every phase
// alternates between the sides (OneProcess, SameTarget, SamePart), with the address or the part it names (At); the
// zero Apart: neither. report.ApartReason words it.
type Apart struct {
	Why ApartWhy
	At  string
}

type ApartWhy int

const (
	RecordBase   ApartWhy = iota + 1 // a stored baseline holds whole runs of one side alone
	CommandLoad                      // the load tool makes a whole run each time it is started
	FixedAddress                     // both sides are started on one fixed address
	OneProcess                       // an A/A job with ab.restart: never
	SameTarget
	SamePart // of the request path (target.measure)
)
