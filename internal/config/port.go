package config

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// PortPlaceholder, written in target.url and target.start (command, env),
// is filled with a free loopback port each time tailgate starts the
// target, so that the two sides of an A/B job never share one.
const PortPlaceholder = "{{port}}"

func (t Target) UsesPort() bool { return hasPort(t.URL) }

// startUsesPort reports whether start's command or env holds the placeholder.
func (t Target) startUsesPort() bool {
	s := t.Start
	return s != nil && (hasPort(s.Command.Shell) || slices.ContainsFunc(s.Command.Args, hasPort) || slices.ContainsFunc(slices.Collect(maps.Values(s.Env)), hasPort))
}

func hasPort(s string) bool { return strings.Contains(s, PortPlaceholder) }

// WithPort is the target with the placeholder replaced by port in its
// URL, start command and start environment; t itself is left as it is.
func (t Target) WithPort(port int) Target {
	fill := func(s string) string { return strings.ReplaceAll(s, PortPlaceholder, strconv.Itoa(port)) }
	t.URL = fill(t.URL)
	if t.Start != nil {
		s := *t.Start
		s.Command.Shell = fill(s.Command.Shell)
		s.Command.Args = slices.Clone(s.Command.Args)
		for i, a := range s.Command.Args {
			s.Command.Args[i] = fill(a)
		}
		s.Env = maps.Clone(s.Env)
		for k, v := range s.Env {
			s.Env[k] = fill(v)
		}
		t.Start = &s
	}
	return t
}

// InTree is the target as started from the source tree at dir: its
// start.dir (default the tree itself) joined to dir, and dir its Tree.
func (t Target) InTree(dir string) Target {
	if dir == "" {
		return t
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	t.Tree = dir
	if t.Start == nil {
		return t
	}
	s := *t.Start
	if !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(dir, s.Dir)
	}
	t.Start = &s
	return t
}
