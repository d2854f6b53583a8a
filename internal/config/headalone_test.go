package config

import "testing"

// tailgate run of a file whose only targets are the A/B sides' own runs
// ab.head's target with ab.head's own dataset check; a head built from a
// ref is not the working tree run builds, so it is left to the refusal.
func TestHeadAloneTakesTheHeadsTargetAndCheck(t *testing.T) {
	own := &Check{Action: Action{Command: &Command{Shell: "./verify-head.sh"}}}
	cfg := &Config{
		Dataset: Dataset{Verify: &Check{Action: Action{Command: &Command{Shell: "./verify.sh"}}}},
		AB:      &AB{Head: ABSide{Target: Target{URL: "http://127.0.0.1:{{port}}"}, Verify: own}},
	}
	if !cfg.HeadAlone() || cfg.Target.URL != "http://127.0.0.1:{{port}}" || cfg.Dataset.Verify != own {
		t.Fatalf("HeadAlone: target %q, verify %+v; want ab.head's url and its own check", cfg.Target.URL, cfg.Dataset.Verify)
	}
	ref := &Config{AB: &AB{Head: ABSide{Target: Target{URL: "http://127.0.0.1:{{port}}"}, Ref: "feature"}}}
	if ref.HeadAlone() || ref.NoTopTarget() == nil {
		t.Fatalf("a head built from a ref ran alone (target %q), want the refusal", ref.Target.URL)
	}
}
