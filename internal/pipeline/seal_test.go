package pipeline

import (
	"os"
	"os/signal"
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

	allowed, err := config.Parse(repo+"/tailgate.yml", []byte(strings.Replace(abRepoConfig, "max_pairs: 6}", "max_pairs: 6, unsealed: allow}", 1)))
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
