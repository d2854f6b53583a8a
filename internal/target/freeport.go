package target

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// Free ports are drawn below Linux's default ephemeral range (32768–60999),
// from which the kernel picks the local ports of outgoing connections: a
// port it chose for a listener and released can be a connection's local
// port a moment later, under the load of a benchmark that opens many.
const (
	freePortLow   = 20000
	freePortHigh  = 32000
	freePortTries = 200
)

// FreePort returns a TCP port that is free on host (a loopback address or
// localhost, then on both 127.0.0.1 and ::1) just now, for a target that
// tailgate starts. Another process could take it before the target binds
// it; the start then fails with the port and its holder named.
func FreePort(host string) (int, error) {
	hosts := []string{host}
	if strings.EqualFold(host, "localhost") {
		hosts = []string{"127.0.0.1", "::1"}
	}
	for range freePortTries {
		port := freePortLow + rand.IntN(freePortHigh-freePortLow)
		if portFreeOn(hosts, port) {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port in %d–%d on %s after %d tries", freePortLow, freePortHigh, host, freePortTries)
}

// portFreeOn reports whether port can be listened on at every host; a host
// this machine lacks (no IPv6) does not count against it.
func portFreeOn(hosts []string, port int) bool {
	for _, h := range hosts {
		ln, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
		if err == nil {
			ln.Close()
			continue
		}
		if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EACCES) || len(hosts) == 1 {
			return false
		}
	}
	return true
}
