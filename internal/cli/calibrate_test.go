package cli_test

import (
	"path/filepath"
	"testing"
)

func TestCalibrateStoresNoise(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	bl := filepath.Join(dir, "b.json")

	o := tailgate(t, "calibrate", "-q", "-c", cfg, "--jobs", "2", "--runs", "2", "--duration", "300ms", "--warmup", "0s", "--baseline", bl)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "2 jobs stored in "+bl, "iterations/s", "σ within job")
	wantContains(t, "stderr", o.stderr, "calibration job 1 of 2", "calibration job 2 of 2")

	f := readBaselineFile(t, bl)
	if f.Calibration == nil {
		t.Fatalf("the baseline has no calibration")
	}
	if n := len(f.Calibration.Jobs); n != 2 {
		t.Fatalf("%d calibration jobs, want 2", n)
	}
	for i, j := range f.Calibration.Jobs {
		if len(j.Runs) != 2 {
			t.Errorf("calibration job %d has %d runs, want 2 (--runs)", i, len(j.Runs))
		}
	}
	if f.Calibration.Jobs[0].Job == f.Calibration.Jobs[1].Job {
		t.Errorf("both calibration jobs are named %q: the between-job noise needs distinct jobs", f.Calibration.Jobs[0].Job)
	}
	nz, ok := f.Calibration.Noise["iterations_per_s"]
	if !ok {
		t.Fatalf("no noise for iterations_per_s: %+v", f.Calibration.Noise)
	}
	if nz.SigmaW < 0 || nz.SigmaB < 0 {
		t.Errorf("negative σ: %+v", nz)
	}
	// The A/A runs are also the baseline's samples.
	if len(f.Samples) != 4 || f.Jobs() != 2 {
		t.Errorf("%d samples from %d jobs, want 4 from 2", len(f.Samples), f.Jobs())
	}
}

func TestCalibrateNeedsTwoJobsUnlessAppending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", closedPortURL(t), 0)
	bl := filepath.Join(dir, "b.json")

	o := tailgate(t, "calibrate", "-c", cfg, "--jobs", "1", "--baseline", bl)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "--jobs")
	wantNoFile(t, bl)

	o = tailgate(t, "calibrate", "-c", cfg, "--jobs", "0", "--baseline", bl)
	wantCode(t, o, 2)
	wantNoFile(t, bl)
}

func TestCalibrateCorruptBaselineIsLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", closedPortURL(t), 0)
	bl := filepath.Join(dir, "b.json")
	mustWrite(t, bl, "{broken")

	o := tailgate(t, "calibrate", "-c", cfg, "--jobs", "2", "--baseline", bl)
	wantCode(t, o, 3)
	if got := string(mustRead(t, bl)); got != "{broken" {
		t.Errorf("the corrupt baseline was rewritten: %q", got)
	}
}

// A broken target during calibration writes nothing.
func TestCalibrateUnreachableTargetWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", closedPortURL(t), 0)
	bl := filepath.Join(dir, "b.json")

	o := tailgate(t, "calibrate", "-q", "-c", cfg, "--jobs", "2", "--baseline", bl)
	wantCode(t, o, 3)
	wantNoFile(t, bl)
}
