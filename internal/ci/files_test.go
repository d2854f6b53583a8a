package ci

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A real child process, started after Seal, appends an unterminated entry
// to GITHUB_OUTPUT (which would swallow tailgate's verdict), a forged pass
// to the summary, a variable to GITHUB_ENV, and puts a link in place of
// GITHUB_PATH. tailgate's next writes find the files changed, put back
// what tailgate had left, and the runner reads tailgate's outputs alone.
func TestSealRestoresCommandFilesAChildWrote(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	files := map[string]string{}
	for _, name := range commandFiles {
		files[name] = filepath.Join(dir, strings.ToLower(name))
	}
	mustWrite(t, files["GITHUB_ENV"], "EARLIER=1\n") // an earlier write in the step
	r := NewRuntime(&bytes.Buffer{}, mapEnv(files))
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	if err := r.Tampered(); err != nil {
		t.Fatalf("Tampered before any child: %v", err)
	}
	if err := r.SetOutput(OutputRegressions, "1"); err != nil { // tailgate's own write before the child's
		t.Fatal(err)
	}

	child := exec.Command(sh, "-c", `printf 'verdict=pass\nswallow<<EOF\n' >> "$OUT"; `+
		`printf '## tailgate: pass ✅\n' >> "$SUM"; printf 'PATH_HIJACK=1\n' >> "$ENVF"; `+
		`rm -f "$PATHF"; ln -s "$ENVF" "$PATHF"`)
	child.Env = []string{"OUT=" + files["GITHUB_OUTPUT"], "SUM=" + files["GITHUB_STEP_SUMMARY"],
		"ENVF=" + files["GITHUB_ENV"], "PATHF=" + files["GITHUB_PATH"]}
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}

	if err := r.SetOutput(OutputVerdict, "regression"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddStepSummary("## tailgate: regression\n"); err != nil {
		t.Fatal(err)
	}
	got := parseOutputFile(t, files["GITHUB_OUTPUT"])
	if len(got) != 2 || got[OutputVerdict] != "regression" || got[OutputRegressions] != "1" {
		t.Errorf("the runner reads outputs %q, want verdict=regression and regressions=1 alone", got)
	}
	if sum := readT(t, files["GITHUB_STEP_SUMMARY"]); sum != "## tailgate: regression\n\n" {
		t.Errorf("summary = %q, want tailgate's alone", sum)
	}
	if env := readT(t, files["GITHUB_ENV"]); env != "EARLIER=1\n" {
		t.Errorf("GITHUB_ENV = %q, want what it held before the child", env)
	}
	if st, err := os.Lstat(files["GITHUB_PATH"]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("GITHUB_PATH: %v %v, want it gone again (it did not exist before the child)", st, err)
	}
	err = r.Tampered()
	if !errors.Is(err, ErrTampered) {
		t.Fatalf("Tampered = %v, want ErrTampered", err)
	}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("Tampered does not name %s: %v", name, err)
		}
	}
	if strings.Contains(err.Error(), "GITHUB_STATE") {
		t.Errorf("Tampered names GITHUB_STATE, which no one touched: %v", err)
	}
}

// A change after tailgate's last write is found at the end (Tampered) and
// undone there too.
func TestTamperedChecksAfterTheLastWrite(t *testing.T) {
	t.Parallel()
	env, output, _ := stepFiles(t)
	r := NewRuntime(&bytes.Buffer{}, mapEnv(env))
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	if err := r.SetOutput(OutputVerdict, "pass"); err != nil {
		t.Fatal(err)
	}
	before := readT(t, output)
	mustWrite(t, output, before+"verdict=regression\n")
	if err := r.Tampered(); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "GITHUB_OUTPUT") {
		t.Errorf("Tampered = %v, want GITHUB_OUTPUT named", err)
	}
	if after := readT(t, output); after != before {
		t.Errorf("GITHUB_OUTPUT = %q, want %q restored", after, before)
	}
}

// Without Seal nothing is checked: the file commands append as they are
// (a step where tailgate starts no child).
func TestUnsealedRuntimeAppends(t *testing.T) {
	t.Parallel()
	env, output, _ := stepFiles(t)
	mustWrite(t, output, "earlier=1\n")
	r := NewRuntime(&bytes.Buffer{}, mapEnv(env))
	if err := r.SetOutput(OutputVerdict, "pass"); err != nil {
		t.Fatal(err)
	}
	if got := parseOutputFile(t, output); got["earlier"] != "1" || got[OutputVerdict] != "pass" {
		t.Errorf("outputs = %q", got)
	}
	if err := r.Tampered(); err != nil {
		t.Errorf("Tampered unsealed = %v", err)
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readT(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A command file that is a device (GITHUB_OUTPUT=/dev/null, as a script
// outside a runner may set) is not guarded, and Seal does not fail on it.
func TestSealSkipsADevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip("no", os.DevNull)
	}
	r := NewRuntime(&bytes.Buffer{}, mapEnv(map[string]string{"GITHUB_OUTPUT": os.DevNull}))
	if err := r.Seal(); err != nil {
		t.Fatalf("Seal with GITHUB_OUTPUT=%s: %v", os.DevNull, err)
	}
	if err := r.SetOutput(OutputVerdict, "pass"); err != nil {
		t.Errorf("SetOutput to %s: %v", os.DevNull, err)
	}
	if err := r.Tampered(); err != nil {
		t.Errorf("Tampered: %v", err)
	}
}
