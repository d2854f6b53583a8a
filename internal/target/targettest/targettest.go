// Package targettest helps tests that start real processes and servers on
// loopback.
package targettest

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"testing"
)

// Ports are drawn below Linux's default ephemeral range (32768–60999):
// the kernel hands ports of that range to outgoing connections, and the
// load tests of a parallel test run open thousands, so a port the kernel
// chose for a listener and released can be a connection's local port a
// moment later.
const (
	lowPort  = 20000
	highPort = 32000
)

// FreeAddr returns a loopback address whose port was free just now, for a
// server that a test starts.
func FreeAddr(t testing.TB) string {
	t.Helper()
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(lowPort+rand.IntN(highPort-lowPort)))
		if ln, err := net.Listen("tcp", addr); err == nil {
			ln.Close()
			return addr
		}
	}
	t.Fatalf("no free port in %d–%d on 127.0.0.1", lowPort, highPort)
	return ""
}

// Executable is the running test binary, which tests re-execute as the
// processes tailgate starts (a service, the supervisor).
func Executable(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
