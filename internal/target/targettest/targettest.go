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

// Ports are drawn below Linux's ephemeral range (32768–60999), whose
// ports go to outgoing connections (load tests open thousands).
const (
	lowPort  = 20000
	highPort = 32000
)

// FreeAddr is a loopback address whose port was free just now.
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

// Executable is the test binary, re-executed as a service or supervisor.
func Executable(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
