package plural

import "testing"

func TestCountReadsOneAndMany(t *testing.T) {
	for n, want := range map[int]string{0: "0 jobs", 1: "1 job", 2: "2 jobs"} {
		if got := Count(n, "job", "jobs"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
