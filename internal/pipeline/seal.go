package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/seal"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// sealing is how an A/B job's sides are kept apart: each side's seal, or
// why they ran unsealed (ab.unsealed: allow), and the files of the base
// commit the head's commands ran.
type sealing struct {
	report.Sealing
	specs map[string]*seal.Spec // by side; nil when unsealed
	state string                // the sides' own files for the job (seal.NewState)
}

// remove ends the sides' holders and removes their own files at the
// job's end (also when it is interrupted).
func (s *sealing) remove(env Env) {
	if s == nil || s.state == "" {
		return
	}
	for _, spec := range s.specs {
		spec.Release()
	}
	if err := seal.RemoveState(s.state); err != nil {
		fmt.Fprintf(env.log(), "warning: removing the sides' own files: %v\n", err)
	}
	s.state = ""
}

// sealSides seals the sides of the job off from each other, or says why
// it cannot: a runtime failure unless ab.unsealed allows running
// unsealed. With the base commit's benchmark (benchmark_from: base) the
// files its commands run are the base commit's for the head too.
func sealSides(ctx context.Context, env Env, o ABOptions, ab config.AB, cfg *config.Config, t *trees) (*sealing, error) {
	if len(procedureCommands(cfg, ab)) == 0 {
		return &sealing{Sealing: report.Sealing{None: true}}, nil // both sides started elsewhere, and no command to run
	}
	environ := env.Processes.Environ
	s := &sealing{Sealing: report.Sealing{Dirs: [2]string{t.absDir(runner.Base), t.absDir(runner.Head)}, Shared: seal.Shared(environ)}}
	if ab.RootSockets != config.UnsealedAllow {
		s.Sockets = seal.RootSockets(environ)
	}
	state, stateErr := seal.NewState(s.Shared)
	s.state = state
	base, head := seal.Sides(seal.Job{
		Base: t.sealSide(runner.Base), Head: t.sealSide(runner.Head),
		Hidden: env.Processes.Hidden, TempDir: seal.Getenv(environ, "TMPDIR"),
		Shared: s.Shared, Sockets: s.Sockets, State: state,
	})
	if o.Policy.fromBase() && !o.AA {
		pins, err := t.pins(cfg, ab)
		if err != nil {
			s.remove(env)
			return nil, Runtime.Wrap(err)
		}
		head.Pins = pins
		for _, p := range pins {
			rel, _ := filepath.Rel(s.Dirs[1], p.Over)
			s.Pinned = append(s.Pinned, filepath.ToSlash(rel))
		}
	}
	s.specs = map[string]*seal.Spec{runner.Base.String(): base, runner.Head.String(): head}
	err := stateErr
	if err == nil {
		err = checkSeals(ctx, env, s.specs, s.Dirs)
	}
	if err == nil {
		return s, nil
	}
	s.remove(env)
	if ab.Unsealed == config.UnsealedAllow {
		s.specs = nil
		s.Unsealed = err.Error()
		fmt.Fprintf(env.log(), "warning: the sides run unsealed (ab.unsealed: allow): %v\n", err)
		return s, nil
	}
	return nil, Runtime.Errorf("%v (%v): on Ubuntu 24.04 run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` before tailgate, or run it as root; ab.unsealed: allow runs the sides unsealed (docs/github-action.md#sealed-sides-mode-ab)", seal.ErrUnavailable, err)
}

// checkSeals starts a command that does nothing under each side's seal:
// a machine that cannot seal fails here, before anything is built.
func checkSeals(ctx context.Context, env Env, specs map[string]*seal.Spec, dirs [2]string) error {
	if !seal.Supported {
		return fmt.Errorf("sealing needs Linux namespaces")
	}
	if len(env.Processes.Supervisor) == 0 {
		return fmt.Errorf("sealing needs tailgate's own executable to supervise the children, and it was not found")
	}
	for i, side := range []runner.Side{runner.Base, runner.Head} {
		ch := target.Children{Environ: env.Processes.Environ, Supervisor: env.Processes.Supervisor, Seal: specs[side.String()], Dir: dirs[i]}
		if err := target.CheckSeal(ctx, ch); err != nil {
			return err
		}
	}
	return nil
}

// absDir is side s's source tree, absolute: where its commands run.
func (t *trees) absDir(s runner.Side) string {
	if t.aa {
		s = runner.Base
	}
	if dir, err := filepath.Abs(t.dir(s)); err == nil {
		return dir
	}
	return t.dir(s)
}

// sealSide is what the seal of side s keeps apart: its whole checkout
// (a worktree's top, or the repository's for the working tree), and for
// a worktree the repository's .git, which git in the worktree needs.
func (t *trees) sealSide(s runner.Side) seal.Side {
	if t.aa {
		s = runner.Base
	}
	side := seal.Side{Name: s.String(), Tree: t.absDir(s)}
	if tr := t.side[s]; tr != nil {
		side.Tree, side.GitDir = tr.Root(), tr.GitDir()
		return side
	}
	for _, tr := range t.side { // the working tree: its whole repository
		side.Tree, side.GitDir = tr.Repo(), tr.GitDir()
	}
	return side
}

// pins are the files of the base commit that the procedure runs, each
// mounted read-only over the head tree's own: every file a command of the
// procedure names as its program, script or makefile (seal.Runs), and
// every file under ab.procedure, taken when the base's worktree holds it
// before the build (so it is the base commit's, not a build's output).
func (t *trees) pins(cfg *config.Config, ab config.AB) ([]seal.Pin, error) {
	if t.side[runner.Base] == nil || t.dir(runner.Base) == t.dir(runner.Head) {
		return nil, nil
	}
	baseDir, headDir := t.absDir(runner.Base), t.absDir(runner.Head)
	var pins []seal.Pin
	seen := map[string]bool{}
	take := func(rel, by string, declared bool) error {
		rel = filepath.Clean(rel)
		if seen[rel] || filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
			return nil
		}
		seen[rel] = true
		from, over := filepath.Join(baseDir, rel), filepath.Join(headDir, rel)
		st, err := os.Lstat(from)
		head, herr := os.Lstat(over)
		switch {
		case declared && err != nil:
			return fmt.Errorf("%s names %s, which the base commit does not hold", by, rel)
		case err != nil && herr == nil && slices.Contains(seal.Makefiles, filepath.Base(rel)) && !readsBefore(baseDir, rel):
			return fmt.Errorf("head: the base commit's procedure runs make (%s), which in the head would read %s, a makefile this pull request adds, instead of the base commit's: remove it, or with benchmark_from: head the head runs its own procedure", by, rel)
		case err != nil || !(st.Mode().IsRegular() || declared && st.IsDir()):
			return nil // not a file of the base commit
		case herr != nil || head.Mode().Type() != st.Mode().Type():
			return fmt.Errorf("head: the base commit's procedure runs %s (run by %s), which this pull request removes or replaces by something other than a file: the head cannot run the base's procedure; with benchmark_from: head it runs its own", rel, by)
		}
		pins = append(pins, seal.Pin{From: from, Over: over})
		return nil
	}
	for _, c := range procedureCommands(cfg, ab) {
		for _, rel := range seal.Runs(c.cmd.Args, c.cmd.Shell) {
			if err := take(filepath.Join(c.dir, rel), c.key, false); err != nil {
				return nil, err
			}
		}
	}
	for i, rel := range ab.Procedure {
		if err := take(rel, fmt.Sprintf("ab.procedure[%d]", i), true); err != nil {
			return nil, err
		}
	}
	return pins, nil
}

// readsBefore says whether make, looking for its makefile beside rel,
// finds one in the base tree before rel's name.
func readsBefore(baseDir, rel string) bool {
	for _, name := range seal.Makefiles[:slices.Index(seal.Makefiles, filepath.Base(rel))] {
		if _, err := os.Lstat(filepath.Join(baseDir, filepath.Dir(rel), name)); err == nil {
			return true
		}
	}
	return false
}

// namedCommand is a command of the procedure, its key and its directory in the side's tree.
type namedCommand struct {
	key string
	cmd config.Command
	dir string
}

func procedureCommands(cfg *config.Config, ab config.AB) []namedCommand {
	var out []namedCommand
	add := func(key string, c *config.Command, dir string) {
		if c != nil && !filepath.IsAbs(dir) {
			out = append(out, namedCommand{key, *c, dir})
		}
	}
	if cfg.Build != nil {
		add("build.command", &cfg.Build.Command, cfg.Build.Dir)
	}
	for _, side := range []struct {
		name string
		t    config.Target
	}{{"ab.base", ab.Base.TargetOr(cfg.Target)}, {"ab.head", ab.Head.TargetOr(cfg.Target)}} {
		if s := side.t.Start; s != nil {
			add("target.start.command", &s.Command, s.Dir)
		}
		for _, c := range side.t.Counters {
			add("target.counters."+c.Name, c.Command, "")
		}
		if v := side.t.Verify; v != nil {
			add(side.name+".verify", v.Command, "")
		}
	}
	if ds := cfg.Dataset; ds.Reset != nil {
		add("dataset.reset", ds.Reset.Command, "")
	}
	if ds := cfg.Dataset; ds.Verify != nil {
		add("dataset.verify", ds.Verify.Command, "")
	}
	add("load.command", cfg.Load.Command, "")
	return out
}
