package ci_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/ci/citest"
)

func guarded(chunks ...string) string {
	var b bytes.Buffer
	g := ci.NewGuard(&b)
	for _, c := range chunks {
		g.Write([]byte(c))
	}
	return b.String()
}

func TestGuardEscapesWhereACommandCouldBegin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"::error::x\n", `\::error::x` + "\n"},
		{"ok\n  \t::warning title=t::x\n", "ok\n  \t" + `\::warning title=t::x` + "\n"},
		{"demo\r::error::pwned", "demo\r" + `\::error::pwned`},
		{"demo\u2028::error::x", "demo\u2028" + `\::error::x`},
		{"demo\u0085::error::x", "demo\u0085" + `\::error::x`},
		{"\u200b\u202e::error::x", "\u200b\u202e" + `\::error::x`},
		{"\x1b[31m::error::x", "\x1b[31m::error::x"}, // the '[' is significant: no longer a line start
		{"\xff::error::x", "\xff" + `\::error::x`},   // not UTF-8: a code page might read it as a space
		{"a ##[group]x ##[stop-commands]y", `a ##\[group]x ##\[stop-commands]y`},
		{"#\u200d#[group]", "#\u200d#" + `\[group]`},
		{"# #[x]", `# #\[x]`},
		{"##[[x", `##\[[x`},
		// Left alone: nothing a command could begin with.
		{"time 12:30:00 ::1 connected\n", "time 12:30:00 ::1 connected\n"},
		{"a::b::c #[x] #x[ ##x[", "a::b::c #[x] #x[ ##x["},
		{`\::already`, `\::already`},
	} {
		if got := guarded(tc.in); got != tc.want {
			t.Errorf("guard(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The guard sees the stream, not the writes: a command split across
// writes, or a line break split inside its UTF-8 bytes, is still caught.
func TestGuardAcrossWrites(t *testing.T) {
	t.Parallel()
	for _, chunks := range [][]string{
		{"demo\n", ":", ":error::x"},
		{"demo\n  ", "::error::x"},
		{"##", "[group]x"},
		{"#", "\u200b", "#", "[x]"},
		{"demo\xe2\x80", "\xa8::error::x"}, // U+2028 split in two writes
		{"demo\xe2", "\x80", "\xa8", "::error::x"},
	} {
		got := guarded(chunks...)
		if cmds := citest.Commands(got); len(cmds) > 0 {
			t.Errorf("writes %q: the log holds %q", chunks, cmds[0].Text)
		}
		if !strings.Contains(got, `\`) || strings.ReplaceAll(got, `\`, "") != strings.Join(chunks, "") {
			t.Errorf("writes %q gave %q: want the text with backslashes inserted", chunks, got)
		}
	}
}

// Every hostile string, written whole and byte by byte, leaves no command
// in the log and loses nothing.
func TestGuardHostileCorpus(t *testing.T) {
	t.Parallel()
	for _, h := range citest.HostileStrings(t) {
		for _, text := range []string{h.Value, "prefix " + h.Value + "\n", "  " + h.Value} {
			whole := guarded(text)
			bytewise := guarded(strings.Split(text, "")...)
			var single bytes.Buffer
			g := ci.NewGuard(&single)
			for i := range len(text) {
				g.Write([]byte{text[i]})
			}
			for _, got := range []string{whole, bytewise, single.String()} {
				if cmds := citest.Commands(got); len(cmds) > 0 {
					t.Errorf("%s: the guarded log holds a command: %q", h.Name, cmds[0].Text)
				}
				if err := insertedOnly(text, got); err != nil {
					t.Errorf("%s: %v", h.Name, err)
				}
			}
		}
	}
}

// insertedOnly checks that out is in with backslashes inserted before
// some ':' and '[', and nothing else changed.
func insertedOnly(in, out string) error {
	i, j := 0, 0
	for i < len(in) && j < len(out) {
		switch {
		case in[i] == out[j]:
			i, j = i+1, j+1
		case out[j] == '\\' && (in[i] == ':' || in[i] == '['):
			j++
		default:
			return fmt.Errorf("guarded text %q differs from %q at byte %d", out, in, j)
		}
	}
	if i != len(in) || j != len(out) {
		return fmt.Errorf("guarded text %q is not %q with backslashes inserted", out, in)
	}
	return nil
}

// A Runtime on a Guard issues its commands on the privileged path: each
// starts a line of its own even after a partial line, and they are the
// only commands in the log.
func TestRuntimeCommandsPassTheGuard(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	g := ci.NewGuard(&log)
	rt := ci.NewRuntime(g, func(string) string { return "" })
	fmt.Fprint(g, "step name ::error::pwned\n::warning title=injected::x\nno line break yet")
	rt.Errorf("tailgate could not judge", "config: step %q\n::error::inside a message", "x")
	fmt.Fprint(g, "::stop-commands::pwn\n")
	rt.Group("run 1 of 2")
	fmt.Fprint(g, "\u2028::add-mask::value")
	rt.EndGroup()
	if err := rt.Err(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range citest.Commands(log.String()) {
		got = append(got, c.Name+" "+c.Props["title"])
	}
	want := []string{"error tailgate could not judge", "group ", "endgroup "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q; log:\n%s", got, want, log.String())
	}
	if !strings.Contains(log.String(), "no line break yet\n::error title=tailgate could not judge::") {
		t.Errorf("the annotation does not start a line of its own:\n%s", log.String())
	}
}

// A target's output and tailgate's own lines write to one stream at once.
func TestGuardConcurrentWriters(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	g := ci.NewGuard(&log)
	rt := ci.NewRuntime(g, func(string) string { return "" })
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if w == 0 {
					rt.Warningf("tailgate", "warning %d", i)
					continue
				}
				fmt.Fprintf(g, "[target] %d\r::error::x%d\n##[group]y", i, w)
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range citest.Commands(log.String()) {
		if c.Name != "warning" || c.Props["title"] != "tailgate" {
			t.Fatalf("a command from the writers: %q", c.Text)
		}
		n++
	}
	if n != 200 {
		t.Errorf("%d of the 200 warnings in the log", n)
	}
}

// The runner-grammar parser itself finds what the runner would.
func TestCitestFindsCommands(t *testing.T) {
	t.Parallel()
	log := "plain\n  ::error file=a.go,line=3::msg\r::Warning::w\r\nx ##[group]g\n::\u200berror::hidden\n:\u200b:notice::ignorable\n::noname\n"
	var got []string
	for _, c := range citest.Commands(log) {
		got = append(got, fmt.Sprintf("%d:%s:%v", c.Line, c.Name, c.Legacy))
	}
	want := "2:error:false 3:warning:false 4:group:true 5:\u200berror:false 6:notice:false"
	if strings.Join(got, " ") != want {
		t.Errorf("commands %v, want %s", got, want)
	}
}

func FuzzGuard(f *testing.F) {
	for _, seed := range []string{"::error::x", "a\r::w::", "##[g]", "#\u200b#[", "\xe2\x80\xa8::x::", " \t::", "ok"} {
		f.Add(seed, uint8(3))
	}
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		size := int(chunk%16) + 1
		var log bytes.Buffer
		g := ci.NewGuard(&log)
		for rest := text; rest != ""; {
			n := min(size, len(rest))
			g.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		if cmds := citest.Commands(log.String()); len(cmds) > 0 {
			t.Fatalf("guarded %q in writes of %d: the log holds %q", text, size, cmds[0].Text)
		}
		if err := insertedOnly(text, log.String()); err != nil {
			t.Fatal(err)
		}
	})
}
