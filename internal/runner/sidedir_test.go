package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// Each side's dataset command sees its own tree (TAILGATE_SIDE_DIR) and
// side, and each side verifies its own dataset (ab.<side>.verify).
func TestABSidesGetTheirTreeAndTheirVerify(t *testing.T) {
	base, head := newService(t), newService(t)
	head.count.Store(4) // the head's dataset has a row more (a migration)
	baseTree, headTree := t.TempDir(), t.TempDir()
	cfg := benchConfig(base.URL, 2)
	cfg.Dataset.Reset = &config.Action{Command: &config.Command{Shell: `echo "$TAILGATE_SIDE" >> "$TAILGATE_SIDE_DIR/resets"`}}
	check := func(n int) *config.Check {
		return &config.Check{Action: config.Action{Request: &config.Request{Method: "GET", Path: "/count"}}, Expect: map[string]any{"count": n}}
	}
	top := config.Target{URL: base.URL}
	baseSide := config.ABSide{Target: top}
	headSide := config.ABSide{Target: config.Target{URL: head.URL}, Verify: check(4)}
	plan := ABPlan{
		Base:  baseSide.TargetOr(top).InTree(baseTree),
		Head:  headSide.TargetOr(top).InTree(headTree),
		Order: config.OrderABBA, MaxBlocks: 2,
	}
	res, err := (&Benchmark{Config: cfg}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatalf("RunAB: %v (the head verifies 4 rows, the base dataset.verify's 3)", err)
	}
	if len(res.Base.Runs) != 2 || len(res.Head.Runs) != 2 {
		t.Fatalf("runs %d/%d, want 2 of each", len(res.Base.Runs), len(res.Head.Runs))
	}
	for tree, side := range map[string]string{baseTree: "base", headTree: "head"} {
		b, err := os.ReadFile(filepath.Join(tree, "resets"))
		if got := strings.Fields(string(b)); err != nil || len(got) != 2 || got[0] != side || got[1] != side {
			t.Errorf("%s tree's resets: %q, %v; want its own side's two resets", side, b, err)
		}
	}

	// Without its own verify the head is checked by dataset.verify (3): it fails.
	plan.Head = config.ABSide{Target: config.Target{URL: head.URL}}.TargetOr(top).InTree(headTree)
	if _, err := (&Benchmark{Config: cfg}).RunAB(context.Background(), plan); err == nil || !strings.Contains(err.Error(), "verify") {
		t.Errorf("the head's 4 rows against dataset.verify's 3: %v, want a verify error", err)
	}
}

// Outside A/B the tree is tailgate's working directory.
func TestSideDirIsTheWorkingDirectory(t *testing.T) {
	svc := newService(t)
	out := filepath.Join(t.TempDir(), "dir")
	cfg := benchConfig(svc.URL, 1)
	cfg.Dataset.Reset = &config.Action{Command: &config.Command{Shell: `printf %s "$TAILGATE_SIDE_DIR" > ` + out}}
	if _, err := (&Benchmark{Config: cfg}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if b, err := os.ReadFile(out); err != nil || string(b) != wd {
		t.Errorf("TAILGATE_SIDE_DIR = %q, %v; want the working directory %s", b, err, wd)
	}
}
