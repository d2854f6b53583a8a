package pipeline

import (
	"flag"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/target"
	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// supervisorArg makes the test binary the supervisor, as tailgate's
// hidden subcommand is: every child of an A/B job runs under it, sealed.
const supervisorArg = "tailgate-pipeline-test-supervise"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		// caught, not ignored: an ignored signal would stay ignored in the command
		signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, os.Interrupt)
		os.Exit(target.Supervise(os.Args[2:]))
	}
	// The parallel tests wait on windows of load against services that
	// sleep or fail, not on the CPU: -parallel defaulted to GOMAXPROCS (2
	// in CI) and left them mostly idle, so unless it is given they run 4
	// at a time. Tests that measure CPU per iteration stay serial.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}

// supervised starts env's children under the supervisor, as tailgate does.
func supervised(t *testing.T, env Env) Env {
	env.Processes.Supervisor = []string{targettest.Executable(t), supervisorArg}
	return env
}

// Without a way to seal the sides (here: no supervisor to enter the
// namespaces) an A/B job that starts processes fails before building
// anything, with one line saying why and how to proceed; with
// ab.unsealed: allow it runs, and the report says it ran unsealed.
func TestABFailsClosedWithoutASeal(t *testing.T) {
	t.Parallel()
	repo := serviceRepo(t, withRounds(3000), withRounds(3100))
	cfg, err := config.Parse(repo+"/tailgate.yml", []byte(abRepoConfig))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	env := buildEnv(t, &te)
	env.Processes.Supervisor = nil
	_, err = AB(t.Context(), env, ABOptions{Config: cfg, Git: baseline.ExecGit{}, Dir: repo})
	if err == nil || KindOf(err) != Runtime {
		t.Fatalf("AB = %v, want a runtime failure", err)
	}
	for _, want := range []string{"cannot be sealed off from each other", "ab.unsealed: allow"} {
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("the error %q lacks %q or is not one line", err, want)
		}
	}
	if strings.Contains(te.log.String(), "[build") {
		t.Errorf("something was built before the job failed:\n%s", te.log.String())
	}
	wantCleanedUp(t, repo, env.TempDir)

	allowed, err := config.Parse(repo+"/tailgate.yml", []byte(strings.Replace(abRepoConfig, "max_blocks: 6}", "max_blocks: 6, unsealed: allow}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	j, err := AB(t.Context(), env, ABOptions{Config: allowed, Git: baseline.ExecGit{}, Dir: repo})
	if err != nil {
		t.Fatalf("AB with ab.unsealed: allow: %v\n%s", err, te.log.String())
	}
	if notes := strings.Join(j.Notes, "\n"); !strings.Contains(notes, "the sides were NOT sealed off from each other (ab.unsealed: allow)") {
		t.Errorf("the report does not say the sides ran unsealed:\n%s", notes)
	}
}

// With benchmark_from: base, `make` in the head's tree reads the base
// commit's Makefile (make without -f pins the makefile it reads), and the
// scripts it calls are the base's where ab.procedure names their
// directory (a file the head adds there is not there for it), and the
// repository's .git is read-only; a makefile
// the head adds that make would read first fails the job.
func TestMakeRunsTheBaseCommitsMakefile(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	repo := commitsRepo(t, map[string]string{"Makefile": "all:\n\tsh scripts/lib.sh > built\n", "scripts/lib.sh": "echo base\n", ".gitignore": "built\n"},
		map[string]string{"Makefile": "all:\n\techo head > built\n", "scripts/lib.sh": "echo head\n", "scripts/added.sh": "echo added\n"})
	src := strings.Replace(abRepoConfig, "build: {command: [go, build, -o, bin/svc, .], timeout: 2m}", "build: {command: make}", 1)
	cfg, err := config.Parse(repo+"/tailgate.yml", []byte(strings.Replace(src, "max_blocks: 6}", "max_blocks: 6, procedure: [scripts/]}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	env := buildEnv(t, &te)
	o := ABOptions{Config: cfg, Git: baseline.ExecGit{}, Dir: repo, Policy: &Policy{Benchmark: cfg}}
	ab, err := o.ab()
	if err != nil {
		t.Fatal(err)
	}
	trees, err := prepareTrees(t.Context(), env, o, ab)
	defer trees.remove(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sealSides(t.Context(), env, o, ab, cfg, trees)
	if err != nil {
		t.Skipf("the sides cannot be sealed here: %v", err)
	}
	defer s.remove(env)
	ch := target.Children{Environ: env.Processes.Environ, Supervisor: env.Processes.Supervisor, Seal: s.specs["head"], Dir: trees.absDir(runner.Head)}
	// The repository's .git is read-only to the head: a hook or setting
	// written there would run in the base's git.
	for _, c := range []config.Command{cfg.Build.Command, {Shell: "! test -e scripts/added.sh"}, {Shell: "! (echo '[core] fsmonitor = x' >> .git/config) 2>/dev/null"}} {
		if err := target.Reset(t.Context(), nil, "", &config.Action{Command: &c}, ch); err != nil {
			t.Error(err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "built")); string(got) != "base\n" {
		t.Errorf("the head's make wrote %q, want the base commit's Makefile and script", got)
	}
	if notes := strings.Join(s.Notes(true), "\n"); !strings.Contains(notes, "for both sides (with benchmark_from: base, every file a command of the procedure names as its program, script or makefile, and every file under ab.procedure): Makefile, scripts") {
		t.Errorf("the notes do not say the rule and the pinned files:\n%s", notes)
	}
	if err := os.WriteFile(filepath.Join(repo, "GNUmakefile"), []byte("all:\n\techo head > built\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sealSides(t.Context(), env, o, ab, cfg, trees); err == nil || !strings.Contains(err.Error(), "would read GNUmakefile, a makefile this pull request adds") {
		t.Errorf("a GNUmakefile the head adds: %v", err)
	}
}
