package gate

import "testing"

// The last link's commit judged again against a base the chain does not
// hold (a tag from before its first link: the Action's creep_since on the
// chain's first push) is a span, never a link that would replace the one
// just appended; a commit after a gap is still a link.
func TestSecondABOfTheLastCommitIsASpan(t *testing.T) {
	t.Parallel()
	chain := []ChainLink{{Commit: "c3", Parent: "c2"}}
	for _, c := range []struct {
		name  string
		entry ChainLink
		span  bool
	}{
		{"against a tag before the chain", ChainLink{Commit: "c3", Parent: "v1"}, true},
		{"the next commit", ChainLink{Commit: "c4", Parent: "c3"}, false},
		{"a commit after a gap", ChainLink{Commit: "c9", Parent: "c8"}, false},
	} {
		if got := IsSpan(chain, c.entry); got != c.span {
			t.Errorf("%s: span %v, want %v", c.name, got, c.span)
		}
	}
	links, spans := SplitChain(append(chain, ChainLink{Commit: "c3", Parent: "v1"}))
	if len(links) != 1 || len(spans) != 1 {
		t.Errorf("links %v, spans %v", links, spans)
	}
}
