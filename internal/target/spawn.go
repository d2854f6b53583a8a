package target

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/seal"
)

// SealFlag and HoldFlag precede the seal (seal.Spec.Encode) in the
// arguments of a sealed side's supervisor and of its holder (seal.Hold).
const (
	SealFlag = "--seal"
	HoldFlag = "--hold"
)

const handshakeTimeout = 20 * time.Second

// proc is one child process tailgate starts: directly, or under the
// supervisor (Children.Supervisor), which then leads its process group.
type proc struct {
	cmd     *exec.Cmd
	sup     *supervision // nil when started directly
	lookErr error        // the program was not found; reported by start
	pid     int          // the command's own pid, once started
	spec    *seal.Spec   // the supervisor runs in namespaces of its own (Children.Seal)
	hold    []string     // the command line of the side's holder (seal.Spec.Trees)
}

// newProc prepares c as a child of ch, in a process group of its own
// killed as a whole when ctx ends. The caller sets the output, then calls
// start or run.
func (ch Children) newProc(ctx context.Context, c *config.Command) (*proc, error) {
	argv, err := commandArgs(c)
	if err != nil {
		return nil, err
	}
	p := &proc{}
	if ch.Seal != nil && len(ch.Supervisor) == 0 {
		return nil, errors.New("a sealed side's children need the supervisor (tailgate's own executable), and there is none")
	}
	if len(ch.Supervisor) == 0 {
		p.cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
		dieWithParent(p.cmd)
	} else {
		// The program is looked up in tailgate's PATH, as a direct start
		// would; a sealed side's supervisor looks it up in the side's own
		// view (its layers hold what its build installed).
		inner := exec.Command(argv[0], argv[1:]...)
		p.lookErr = inner.Err
		args := slices.Clone(ch.Supervisor[1:])
		if ch.Seal != nil {
			args = append(args, SealFlag, ch.Seal.Encode())
			if !strings.ContainsRune(argv[0], '/') {
				inner.Path, p.lookErr = argv[0], nil
			}
		}
		args = append(args, "--", inner.Path)
		p.cmd = exec.CommandContext(ctx, ch.Supervisor[0], append(args, argv...)...)
		p.sup = &supervision{}
	}
	if ch.Seal != nil {
		seal.SupervisorAttr(sysAttr(p.cmd))
		p.spec, p.hold = ch.Seal, append(slices.Clone(ch.Supervisor), HoldFlag)
	}
	p.cmd.Dir, p.cmd.Env = ch.Dir, ch.Env()
	inOwnGroup(p.cmd)
	p.cmd.Cancel = func() error { return signalGroup(p.cmd.Process.Pid, syscall.SIGKILL) }
	return p, nil
}

// commandArgs is c's argv: a list runs directly, a string by `sh -c`.
func commandArgs(c *config.Command) ([]string, error) {
	switch {
	case len(c.Args) > 0:
		return c.Args, nil
	case strings.TrimSpace(c.Shell) != "":
		return []string{"sh", "-c", c.Shell}, nil
	}
	return nil, errors.New("command is empty: give a list of arguments or a shell string")
}

// start starts the child; under the supervisor, once it said the pid.
func (p *proc) start() error {
	if p.lookErr != nil {
		return p.lookErr
	}
	if err := checkDir(p.cmd.Dir); err != nil {
		return err
	}
	if p.sup == nil {
		if err := p.cmd.Start(); err != nil {
			return err
		}
		p.pid = p.cmd.Process.Pid
		return nil
	}
	if p.spec != nil {
		trees, err := p.spec.Trees(p.hold)
		if err != nil {
			return err
		}
		p.cmd.ExtraFiles = trees // from seal.LayerFD on, after the pipes
	}
	pid, err := p.sup.start(p.cmd, p.spec != nil)
	if err == nil && p.spec != nil {
		// The pid in tailgate's PID namespace; none when already gone.
		pid, _ = seal.HostPID(p.cmd.Process.Pid, pid)
	}
	p.pid = pid
	return err
}

// checkDir names a missing working directory, which the start's error
// would not (it names the program, or under the supervisor tailgate).
func checkDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case dir == "": // tailgate's own
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("working directory %s does not exist", dir)
	case err != nil:
		return fmt.Errorf("working directory %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("working directory %s is not a directory", dir)
	}
	return nil
}

// wait waits for the child and returns how the command ended: nil, or an
// error with an ExitCode method ("exit status 3", "signal: killed").
func (p *proc) wait() error {
	err := p.cmd.Wait()
	if p.sup == nil {
		// What the command left behind held its output open: the
		// command's own status counts, as under the supervisor.
		if ps := p.cmd.ProcessState; ps != nil && errors.Is(err, exec.ErrWaitDelay) {
			if ps.Success() {
				return nil
			}
			return &exec.ExitError{ProcessState: ps}
		}
		return err
	}
	if status, ok := p.sup.finish(); ok {
		return status.err()
	}
	return err // the supervisor itself was killed: its own end says how
}

// group is the child's process group (the supervisor's, or the command's).
func (p *proc) group() int { return p.cmd.Process.Pid }

// supervision is tailgate's end of the pipes to the supervisor: the life
// pipe, whose write end only tailgate holds (the supervisor reads
// end-of-file exactly when tailgate is gone), and the report pipe, on
// which it says the command's pid and at the end its status.
type supervision struct {
	life   *os.File // write end, never written: closed when the command is done
	file   *os.File // read end of the report pipe
	report *bufio.Reader
}

func (s *supervision) start(cmd *exec.Cmd, sealed bool) (int, error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return 0, err
	}
	cmd.ExtraFiles = append([]*os.File{lifeR, repW}, cmd.ExtraFiles...) // fds 3 and 4 of the supervisor
	if sealed {
		err = seal.Start(cmd)
	} else {
		err = cmd.Start()
	}
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if err != nil {
		lifeW.Close()
		repR.Close()
		return 0, fmt.Errorf("starting the supervisor: %w", err)
	}
	s.life, s.file, s.report = lifeW, repR, bufio.NewReader(repR)
	s.file.SetReadDeadline(time.Now().Add(handshakeTimeout))
	line, err := s.report.ReadString('\n')
	word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	if pid, perr := strconv.Atoi(rest); err == nil && word == "pid" && perr == nil && pid > 0 {
		return pid, nil
	}
	// Not started: the supervisor said why, or it is no supervisor.
	signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	s.finish()
	if word == "failed" {
		return 0, errors.New(rest)
	}
	return 0, fmt.Errorf("the supervisor %s did not start the command (said %q, %v)", cmd.Path, strings.TrimSpace(line), err)
}

// finish reads the command's status once the supervisor has exited and
// closes the pipes; ok is false when it said none.
func (s *supervision) finish() (st exitStatus, ok bool) {
	if s.file == nil {
		return st, false
	}
	s.file.SetReadDeadline(time.Now().Add(time.Second))
	for {
		line, err := s.report.ReadString('\n')
		if parsed, good := parseExitStatus(line); good {
			st, ok = parsed, true
		}
		if err != nil {
			break
		}
	}
	s.life.Close()
	s.file.Close()
	s.file = nil
	return st, ok
}

// exitStatus is how a supervised command ended, as the supervisor saw it;
// as an error it is worded as os/exec words it.
type exitStatus struct {
	code   int
	signal syscall.Signal // non-zero when a signal ended it
}

// line is the report line of a status: "exit 3" or "signal 9".
func (s exitStatus) line() string {
	if s.signal != 0 {
		return "signal " + strconv.Itoa(int(s.signal))
	}
	return "exit " + strconv.Itoa(s.code)
}

func parseExitStatus(line string) (exitStatus, bool) {
	word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	n, err := strconv.Atoi(rest)
	switch {
	case err != nil:
	case word == "exit":
		return exitStatus{code: n}, true
	case word == "signal" && n > 0:
		return exitStatus{signal: syscall.Signal(n)}, true
	}
	return exitStatus{}, false
}

func (s exitStatus) err() error {
	if s.signal == 0 && s.code == 0 {
		return nil
	}
	return s
}

func (s exitStatus) Error() string {
	if s.signal != 0 {
		return "signal: " + s.signal.String()
	}
	return "exit status " + strconv.Itoa(s.code)
}

// ExitCode is the command's exit code, or -1 when a signal ended it.
func (s exitStatus) ExitCode() int {
	if s.signal != 0 {
		return -1
	}
	return s.code
}
