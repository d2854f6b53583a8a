package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

func TestRecordAppendsToTheHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.json")
	var env testEnv
	for i, commit := range []string{"c1", "c2"} {
		rec, err := Record(context.Background(), env.env(), RecordOptions{Head: synthetic(3, 1), Path: path,
			Provenance: baseline.Provenance{Commit: commit, Job: commit}, Runner: "ubuntu24/1"})
		if err != nil {
			t.Fatal(err)
		}
		if rec.HistoryPath != filepath.Join(dir, "items.history.jsonl") || len(rec.History.Jobs) != i+1 {
			t.Fatalf("history %s with %d jobs after %d records", rec.HistoryPath, len(rec.History.Jobs), i+1)
		}
	}
	h, err := baseline.ReadHistory(filepath.Join(dir, "items.history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if j := h.Jobs[1]; j.Commit != "c2" || j.Runner != "ubuntu24/1" || len(j.Runs) != 3 || j.DefinitionHash != "sha256:1" {
		t.Errorf("second job %+v", j)
	}
}

// An unreadable history stops the record before anything is written, and
// is left as it was; the baseline is not touched either.
func TestRecordKeepsAnUnreadableHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.json")
	hist := filepath.Join(dir, "items.history.jsonl")
	if err := os.WriteFile(hist, []byte("{broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var env testEnv
	_, err := Record(context.Background(), env.env(), RecordOptions{Head: synthetic(3, 1), Path: path})
	if err == nil || KindOf(err) != Runtime {
		t.Fatalf("record over a broken history: %v, want a runtime failure", err)
	}
	if data, _ := os.ReadFile(hist); string(data) != "{broken\n" {
		t.Errorf("the history was changed to %q", data)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a baseline was written: %v", err)
	}
}

func TestHistoryUseCase(t *testing.T) {
	t.Parallel()
	if _, err := History(HistoryOptions{Path: filepath.Join(t.TempDir(), "none.jsonl")}); KindOf(err) != Usage {
		t.Errorf("a missing history: %v, want bad input", err)
	}
}
