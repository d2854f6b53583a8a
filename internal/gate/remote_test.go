package gate

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Every verdict on a remote target says that the network is measured:
// compared, without a baseline, with a changed definition, sequential.
func TestRemoteTargetWarnsInEveryVerdict(t *testing.T) {
	t.Parallel()
	base := runsOf(result.IterationsPerSec, 100, 101, 99, 100, 102, 98)
	head := runsOf(result.IterationsPerSec, 100, 100, 101, 99, 100, 98)
	remote := Policy{Context: Context{RemoteTarget: true}}
	cases := map[string]Verdict{
		"compared":           Judge(base, head, remote),
		"no baseline":        Judge(nil, head, Policy{Context: Context{RemoteTarget: true, NoBaseline: true}}),
		"definition changed": Judge(base, head, Policy{Context: Context{RemoteTarget: true, DefinitionChanged: true}}),
		"sequential":         JudgeSequential(base, head, remote, stats.SeqDesign{}, true, SeqOptions{}),
	}
	for name, v := range cases {
		if !v.HasWarning(WarnRemoteTarget) {
			t.Errorf("%s: warnings %v, want the remote target's", name, stats.Messages(v.Warnings))
		}
	}
	if v := Judge(base, head, Policy{}); v.HasWarning(WarnRemoteTarget) {
		t.Error("a loopback target's verdict warns of a remote one")
	}
	w := WarningOf(fixedTexts[WarnRemoteTarget])
	if w.Code != WarnRemoteTarget {
		t.Errorf("the warning read back from report.json has code %q", w.Code)
	}
}
