// Package seal owns the isolation of an A/B job's two sides: what each
// side's children (its build, its service, and every command run for it)
// can see of the machine. A side's children run in mount, PID and IPC
// namespaces of their own, entered by the supervisor (target.Supervise)
// before it starts the command, under a user namespace of their own that
// locks the mounts (a child cannot unmount what hides the other side).
// In its mount namespace the other side's tree, the runner's files and
// the job's state are empty read-only directories; its TMPDIR and
// /dev/shm are its own for the whole job (kept under the state); the
// runner's $HOME, /tmp and writable PATH directories are overlays whose
// writes land in the side's own layer, mounted once for the job (Trees);
// container engines' sockets are /dev/null; /proc shows its own processes
// only, so that it can neither signal nor trace the other side, nor
// tailgate. With benchmark_from:
// base the files the procedure runs (Runs) are the base commit's,
// mounted over the head tree's (Pin).
//
// What it does not seal: the network (both sides serve on loopback and
// can reach each other's port), the CPU, memory and disk bandwidth (a
// side can flood the machine), and as root the system's directories off
// PATH (docs/github-action.md, threat model).
package seal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Spec is what one side's children see: the mounts the supervisor makes
// in the side's new mount namespace before it starts the command.
type Spec struct {
	// Side names the side in messages ("base", "head").
	Side string `json:"side"`
	// Hide are directories replaced by an empty read-only directory: the
	// other side's tree and temporary directory, the runner's files.
	Hide []string `json:"hide,omitempty"`
	// Keep are directories inside a hidden one that stay visible as they
	// are (the side's own tree, when it lies inside a hidden directory);
	// KeepReadOnly the same, read-only (the repository's .git for the
	// base, which its worktree's .git file points into).
	Keep         []string `json:"keep,omitempty"`
	KeepReadOnly []string `json:"keep_ro,omitempty"`
	// Layers are the runner's directories the side sees as they are,
	// its writes landing in a layer of its own (overlayfs); Real are
	// directories inside one that stay the real ones (the side's tree).
	Layers []Layer  `json:"layers,omitempty"`
	Real   []string `json:"real,omitempty"`
	// Own are the side's own writable directories mounted over Over (its
	// TMPDIR, /dev/shm), kept for the job.
	Own []Pin `json:"own,omitempty"`
	// Sockets are files covered by /dev/null: sockets that grant root.
	Sockets []string `json:"sockets,omitempty"`
	// Pins are files or directories of another tree mounted read-only
	// over this side's.
	Pins []Pin `json:"pins,omitempty"`
	// UID and GID are tailgate's: the command runs as them in its user
	// namespace (root's whole range when tailgate is root).
	UID int `json:"uid"`
	GID int `json:"gid"`

	held *holder // the side's holder (Trees), started at its first command
}

// holder is tailgate's end of the process that holds a side's layers for
// the whole job (Hold), started at the side's first command.
type holder struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	conn *net.UnixConn
	err  error // why it did not start, or that the job has ended
}

// holding guards Spec.held.
var holding sync.Mutex

func (s *Spec) holder() *holder {
	holding.Lock()
	defer holding.Unlock()
	if s.held == nil {
		s.held = &holder{}
	}
	return s.held
}

// Layer is an overlay on Dir whose upper directory (the side's writes)
// is Upper; the supervisor makes its work directory inside Work.
type Layer struct {
	Dir   string `json:"dir"`
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// Pin mounts the file or directory From (in the base tree) over Over (in
// this side's tree), read-only.
type Pin struct {
	From string `json:"from"`
	Over string `json:"over"`
}

// LayerFD is the supervisor's fd of the first of its side's layers
// (Trees), after its two pipes.
const LayerFD = 5

// Encode is spec as the supervisor's argument.
func (s *Spec) Encode() string {
	b, _ := json.Marshal(s) // a struct of strings and ints always encodes
	return string(b)
}

// Decode reads a spec that Encode wrote.
func Decode(arg string) (*Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(arg), &s); err != nil {
		return nil, fmt.Errorf("reading the seal: %w", err)
	}
	for _, p := range s.paths() {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("reading the seal: path %q is not absolute", p)
		}
	}
	return &s, nil
}

func (s *Spec) paths() []string {
	out := slices.Concat(s.Hide, s.Keep, s.KeepReadOnly, s.Real, s.Sockets)
	for _, p := range slices.Concat(s.Pins, s.Own) {
		out = append(out, p.From, p.Over)
	}
	for _, l := range s.Layers {
		out = append(out, l.Dir, l.Upper, l.Work)
	}
	return slices.DeleteFunc(out, func(p string) bool { return p == "" })
}

// Side describes one side of a job for Sides: its source tree (the root of
// its worktree, or the working tree) and its private temporary directory.
type Side struct {
	Name string
	Tree string
	// GitDir, when set, is the repository's .git, which the side sees
	// read-only: in its own tree, or in the other side's (a worktree's
	// .git file points into it).
	GitDir string
}

// Job is what Sides seals: the two sides, the directories no child may
// see (the runner's files), the temporary directory children are given
// ($TMPDIR: each side's own), the runner's directories both see, the
// sockets neither may reach, and the job's directory of the sides' own
// files.
type Job struct {
	Base, Head Side
	Hidden     []string
	TempDir    string
	// Shared are the runner's directories both sides see (Shared):
	// what a side writes there lands in a layer of its own.
	Shared []string
	// Sockets are files no side may reach (RootSockets).
	Sockets []string
	// State is the job's directory of the sides' own files (NewState);
	// every job has one.
	State string
}

// Sides are the specs of the base and the head: each hides the other's
// tree, the job's hidden directories and State, keeps its own tree where
// it lies inside one of them, has a TMPDIR and /dev/shm of its own for
// the job (under State), a
// layer of its own over each Shared directory outside the trees, and no
// Sockets; its commands run as tailgate's uid and gid.
func Sides(j Job) (base, head *Spec) {
	return j.spec(j.Base, j.Head), j.spec(j.Head, j.Base)
}

func (j Job) spec(own, other Side) *Spec {
	s := &Spec{Side: own.Name, UID: os.Geteuid(), GID: os.Getegid()}
	hide := slices.Clone(j.Hidden)
	if j.State != "" {
		hide = append(hide, j.State)
	}
	if other.Tree != "" && other.Tree != own.Tree {
		hide = append(hide, other.Tree)
	}
	for _, h := range hide {
		h = filepath.Clean(h)
		if within(own.Tree, h) {
			// A hidden directory holding the side's tree itself (the
			// runner's temporary directory): its tree stays.
			s.Keep = appendOnce(s.Keep, own.Tree)
		}
		if own.GitDir != "" && within(own.GitDir, h) && !within(own.GitDir, own.Tree) {
			s.KeepReadOnly = appendOnce(s.KeepReadOnly, own.GitDir)
		}
		s.Hide = appendOnce(s.Hide, h)
	}
	if own.GitDir != "" && within(own.GitDir, own.Tree) {
		// The repository in the side's own tree: a hook or setting the
		// head wrote there would run in the base's git.
		s.KeepReadOnly = appendOnce(s.KeepReadOnly, own.GitDir)
	}
	mine := func(name string) string { return filepath.Join(j.State, own.Name, name) }
	if j.TempDir != "" {
		s.Own = append(s.Own, Pin{From: mine("tmp"), Over: j.TempDir})
	}
	s.Own = append(s.Own, Pin{From: mine("shm"), Over: "/dev/shm"})
	for i, d := range j.Shared {
		if within(d, own.Tree) || within(d, other.Tree) {
			continue // the trees are the sides' own already
		}
		n := strconv.Itoa(i)
		s.Layers = append(s.Layers, Layer{Dir: d, Upper: mine("upper/" + n), Work: mine("work/" + n)})
		if within(own.Tree, d) {
			s.Real = appendOnce(s.Real, own.Tree)
		}
	}
	s.Sockets = slices.Clone(j.Sockets)
	return s
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	if path == "" || dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// ErrUnavailable wraps the reason the sides cannot be sealed here.
var ErrUnavailable = errors.New("the sides of an A/B job cannot be sealed off from each other here")

// NewState makes the job's directory of the sides' own files (Job.State):
// their TMPDIR, /dev/shm and layers. It lies outside every shared
// directory (overlayfs refuses an upper directory inside a lower one):
// in tailgate's temporary directory, else /var/tmp, else /dev/shm.
func NewState(shared []string) (string, error) {
	tried := []string{os.TempDir(), "/var/tmp", "/dev/shm"}
	for _, root := range tried {
		if slices.ContainsFunc(shared, func(d string) bool { return within(root, d) || within(d, root) }) {
			continue
		}
		if dir, err := os.MkdirTemp(root, "tailgate-sides-"); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w: no directory to keep each side's own files in outside %s (tried %s)", ErrUnavailable, strings.Join(shared, ", "), strings.Join(tried, ", "))
}

// RemoveState removes the job's directory of the sides' own files, also
// what a side left unreadable (an overlay's work directory is mode 0).
func RemoveState(dir string) error {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Getenv is the value environ (a process environment, later entries
// winning as exec does) gives name; "" when it has none.
func Getenv(environ []string, name string) string {
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}
