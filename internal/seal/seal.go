// Package seal owns the isolation of an A/B job's two sides: what each
// side's children (its build, its service, and every command run for it)
// can see of the machine. A side's children run in mount, PID and IPC
// namespaces of their own, entered by the supervisor (target.Supervise)
// before it starts the command, under a user namespace of their own that
// locks the mounts (a child cannot unmount what hides the other side).
// In its mount namespace the other side's tree, the runner's files and
// the other side's temporary directory are empty read-only directories;
// its own temporary directory and /dev/shm are private; /proc shows its
// own processes only, so that it can neither signal nor trace the other
// side, nor tailgate. With benchmark_from: base the files the
// procedure's commands run (Runs) are the base commit's, mounted over the
// head tree's (Pin).
//
// What it does not seal: the network (both sides serve on loopback and
// can reach each other's port), the CPU, memory and disk bandwidth (a
// side can flood the machine), $HOME and /tmp outside the side's own
// temporary directory (docs/github-action.md, threat model).
package seal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Private are directories replaced by an empty writable directory of
	// the side's own: its temporary directory, /dev/shm.
	Private []string `json:"private,omitempty"`
	// Pins are files of another tree mounted read-only over this side's.
	Pins []Pin `json:"pins,omitempty"`
	// UID and GID are tailgate's: the command runs as them in its user
	// namespace (root's whole range when tailgate is root).
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// Pin mounts the file From (in the base tree) over Over (in this side's
// tree), read-only.
type Pin struct {
	From string `json:"from"`
	Over string `json:"over"`
}

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
	out := slices.Concat(s.Hide, s.Keep, s.KeepReadOnly, s.Private)
	for _, p := range s.Pins {
		out = append(out, p.From, p.Over)
	}
	return out
}

// Side describes one side of a job for Sides: its source tree (the root of
// its worktree, or the working tree) and its private temporary directory.
type Side struct {
	Name string
	Tree string
	// GitDir, when set, is a directory the side's tree needs read-only
	// although it lies in the other side's tree: the repository's .git,
	// which a worktree's .git file points into.
	GitDir string
}

// Job is what Sides seals: the two sides, the directories no child may
// see (the runner's files), and the temporary directory children are
// given ($TMPDIR: private to each side).
type Job struct {
	Base, Head Side
	Hidden     []string
	TempDir    string
}

// Sides are the specs of the base and the head: each hides the other's
// tree and the job's hidden directories, keeps its own tree where it lies
// inside one of them, and has a temporary directory and /dev/shm of its
// own; its commands run as tailgate's uid and gid.
func Sides(j Job) (base, head *Spec) {
	return j.spec(j.Base, j.Head), j.spec(j.Head, j.Base)
}

func (j Job) spec(own, other Side) *Spec {
	s := &Spec{Side: own.Name, UID: os.Geteuid(), GID: os.Getegid()}
	hide := slices.Clone(j.Hidden)
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
	if j.TempDir != "" {
		s.Private = append(s.Private, j.TempDir)
	}
	s.Private = append(s.Private, "/dev/shm")
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
