// Package seal owns the isolation of an A/B job's two sides: what each
// side's children (build, service, every command) see of the machine.
// They run in mount, PID and IPC namespaces the supervisor
// (target.Supervise) enters, under a user namespace that locks the mounts.
// There the other side's tree, the runner's files and the job's state are
// empty read-only directories; TMPDIR and /dev/shm are the side's own for
// the job; $HOME, /tmp and writable PATH directories are overlays whose
// writes land in the side's own layer (Trees); container engines' sockets
// are /dev/null; /proc shows the side's own processes only. With
// benchmark_from: base the files the procedure runs (Runs) are the base
// commit's, mounted over the head tree's (Pin).
//
// Not sealed: the network (both serve on loopback), CPU, memory and disk
// bandwidth, and as root the system's directories off PATH
// (docs/github-action.md, threat model).
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

// Spec is what one side's children see: the mounts the supervisor makes.
type Spec struct {
	Side string `json:"side"` // "base" or "head", for messages
	// Hide are directories replaced by an empty read-only one.
	Hide []string `json:"hide,omitempty"`
	// Keep are directories inside a hidden one that stay visible (the
	// side's tree); KeepReadOnly the same, read-only (the repository's
	// .git, which a worktree's .git file points into).
	Keep         []string `json:"keep,omitempty"`
	KeepReadOnly []string `json:"keep_ro,omitempty"`
	// Layers are the runner's directories the side writes to a layer of
	// its own (overlayfs); Real are directories inside one that stay real.
	Layers  []Layer  `json:"layers,omitempty"`
	Real    []string `json:"real,omitempty"`
	Own     []Pin    `json:"own,omitempty"`     // the side's own TMPDIR and /dev/shm
	Sockets []string `json:"sockets,omitempty"` // covered by /dev/null: they grant root
	Pins    []Pin    `json:"pins,omitempty"`    // the base's files, read-only over this side's
	// UID and GID are tailgate's, the command's in its user namespace.
	UID int `json:"uid"`
	GID int `json:"gid"`

	held *holder // the side's holder (Trees), started at its first command
}

// holder is tailgate's end of the process holding a side's layers (Hold).
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

// Layer is an overlay on Dir, the side's writes in Upper.
type Layer struct {
	Dir   string `json:"dir"`
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// Pin mounts From over Over.
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
	paths := slices.Concat(s.Hide, s.Keep, s.KeepReadOnly, s.Real, s.Sockets)
	for _, p := range slices.Concat(s.Pins, s.Own) {
		paths = append(paths, p.From, p.Over)
	}
	for _, l := range s.Layers {
		paths = append(paths, l.Dir, l.Upper, l.Work)
	}
	for _, p := range paths {
		if p != "" && !filepath.IsAbs(p) {
			return nil, fmt.Errorf("reading the seal: path %q is not absolute", p)
		}
	}
	return &s, nil
}

// Side is one side of a job for Sides: its name, its source tree, and the
// repository's .git that it sees read-only ("": none).
type Side struct {
	Name, Tree, GitDir string
}

// Job is what Sides seals: the two sides, the directories no child may see
// (Hidden), children's $TMPDIR (TempDir), the runner's directories both
// write to layers of their own (Shared), the sockets neither may reach
// (RootSockets) and the job's directory of the sides' own files (NewState).
type Job struct {
	Base, Head              Side
	Hidden, Shared, Sockets []string
	TempDir, State          string
}

// Sides are the specs of the base and the head: each hides the other's
// tree, Hidden and State, keeps its own tree where it lies inside one,
// has its own TMPDIR and /dev/shm (under State), a layer over each Shared
// directory outside the trees, and no Sockets.
func Sides(j Job) (base, head *Spec) { return j.spec(j.Base, j.Head), j.spec(j.Head, j.Base) }

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
		if within(own.Tree, h) { // the runner's temporary directory, say
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
	shm := mine("shm")
	if ram, err := os.Readlink(filepath.Join(j.State, shmLink)); err == nil {
		shm = filepath.Join(ram, own.Name) // NewState's RAM disk
	}
	s.Own = append(s.Own, Pin{From: shm, Over: "/dev/shm"})
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

// shmLink, in Job.State, links to where the sides' own /dev/shm lie when
// NewState could make them on the system's /dev/shm.
const shmLink = "shm"

// NewState makes Job.State outside every shared directory (overlayfs
// refuses an upper directory inside a lower one), and the sides' own
// /dev/shm on the system's, a RAM disk, where the state lies elsewhere
// (on a disk, /var/tmp: a service that keeps its data on /dev/shm, as
// for a RAM disk, would fsync to the disk).
func NewState(shared []string) (string, error) {
	tried := []string{os.TempDir(), "/var/tmp", "/dev/shm"}
	apart := func(root string) bool {
		return !slices.ContainsFunc(shared, func(d string) bool { return within(root, d) || within(d, root) })
	}
	for _, root := range tried {
		if !apart(root) {
			continue
		}
		if dir, err := os.MkdirTemp(root, "tailgate-sides-"); err == nil {
			if root != "/dev/shm" && apart("/dev/shm") {
				if ram, err := os.MkdirTemp("/dev/shm", "tailgate-shm-"); err == nil && os.Symlink(ram, filepath.Join(dir, shmLink)) != nil {
					os.Remove(ram)
				}
			}
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w: no directory to keep each side's own files in outside %s (tried %s)", ErrUnavailable, strings.Join(shared, ", "), strings.Join(tried, ", "))
}

// RemoveState removes Job.State and the sides' own /dev/shm, also what a
// side left unreadable (an overlay's work directory is mode 0).
func RemoveState(dir string) error {
	dirs := []string{dir}
	if ram, err := os.Readlink(filepath.Join(dir, shmLink)); err == nil {
		dirs = append(dirs, ram)
	}
	var errs []error
	for _, dir := range slices.Backward(dirs) { // the link last
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
		errs = append(errs, os.RemoveAll(dir))
	}
	return errors.Join(errs...)
}

// Getenv is name's value in environ, the last entry winning as exec does.
func Getenv(environ []string, name string) string {
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}
