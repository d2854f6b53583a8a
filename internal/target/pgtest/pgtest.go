// Package pgtest starts a private PostgreSQL cluster for a test: initdb in
// a temporary directory, a server on a free loopback port with
// pg_stat_statements loaded, stopped when the test ends. Tests that need
// it skip where the server's binaries are not installed.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

type Cluster struct {
	// Dir holds the data directory (Data), the socket and the log.
	Dir, Data string
	Port      int
	// Bin is the directory of initdb, pg_ctl and postgres.
	Bin string
	// asUser runs the server's commands as the postgres user when the
	// test runs as root (PostgreSQL refuses to run as root).
	asUser []string
}

func (c *Cluster) PIDFile() string { return filepath.Join(c.Data, "postmaster.pid") }

// Env is what a client (psql) needs to reach the cluster as its superuser.
func (c *Cluster) Env() []string {
	return []string{"PGHOST=127.0.0.1", "PGPORT=" + strconv.Itoa(c.Port), "PGUSER=postgres", "PGDATABASE=postgres"}
}

// Start initialises and starts a cluster, or skips the test when
// PostgreSQL's server binaries or psql are not installed.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := serverBin()
	if bin == "" {
		t.Skip("PostgreSQL server binaries (initdb, pg_ctl) not installed")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql not installed")
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &Cluster{Dir: dir, Data: filepath.Join(dir, "data"), Bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and no postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := errors.Join(os.Chmod(dir, 0o755), os.Chown(dir, uid, gid)); err != nil {
			t.Fatal(err)
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	port, _ := strconv.Atoi(strings.TrimPrefix(targettest.FreeAddr(t), "127.0.0.1:"))
	c.Port = port
	c.server(t, "initdb", "-D", c.Data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale", "C")
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n"+
		"shared_preload_libraries = 'pg_stat_statements'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"+
		"shared_buffers = 32MB\nmax_connections = 50\nautovacuum = off\n", port, dir)
	f, err := os.OpenFile(filepath.Join(c.Data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(conf)
	f.Close()
	c.server(t, "pg_ctl", "-D", c.Data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start")
	t.Cleanup(func() { c.command("pg_ctl", "-D", c.Data, "-m", "immediate", "-w", "stop").Run() })
	return c
}

// serverBin finds the directory of initdb and pg_ctl: on PATH, else
// Debian's /usr/lib/postgresql/<version>/bin (the newest).
func serverBin() string {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if _, err := exec.LookPath(filepath.Join(filepath.Dir(p), "initdb")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, c.asUser...), filepath.Join(c.Bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	return cmd
}

func (c *Cluster) server(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := c.command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
		t.Fatalf("%s: %v\n%s\n%s", name, err, out.String(), log)
	}
}

// PSQL runs SQL on database db as the superuser and returns its
// unaligned, tuples-only output.
func (c *Cluster) PSQL(t testing.TB, db, sql string) string {
	t.Helper()
	cmd := exec.Command("psql", "-X", "-v", "ON_ERROR_STOP=1", "-Atq", "-d", db, "-c", sql)
	cmd.Env = append(os.Environ(), c.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql -d %s -c %q: %v\n%s", db, sql, err, out)
	}
	return strings.TrimSpace(string(out))
}
