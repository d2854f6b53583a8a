package pipeline

import (
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
)

// --since counts the creep from the link after a tag's commit (or from the
// link whose parent it is), or from the first link on or after a date; a
// commit the chain does not hold is bad input.
func TestSinceLink(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	links := []gate.ChainLink{{Commit: "b", Parent: "a", Time: day(1)}, {Commit: "c", Parent: "b", Time: day(2)}, {Commit: "d", Parent: "c", Time: day(3)}}
	cases := []struct {
		since Since
		want  int
	}{
		{Since{}, 0},
		{Since{Commit: "a", Name: "v0"}, 0}, // the first link's parent: the whole chain
		{Since{Commit: "b", Name: "v1"}, 1},
		{Since{Commit: "d", Name: "v2"}, 3}, // the newest: nothing since
		{Since{Time: day(2).Truncate(24 * time.Hour), Name: "2026-11-02"}, 1},
		{Since{Time: day(9), Name: "2026-11-09"}, 3},
	}
	for _, c := range cases {
		got, _, err := sinceLink(links, c.since)
		if err != nil || got != c.want {
			t.Errorf("since %+v: %d, %v; want %d", c.since, got, err, c.want)
		}
	}
	if _, _, err := sinceLink(links, Since{Commit: "zz", Name: "v9"}); err == nil {
		t.Error("a commit outside the chain was accepted")
	}
}
