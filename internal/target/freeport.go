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

// Free ports are drawn below Linux's ephemeral range (32768–60999), whose
// ports the kernel hands to outgoing connections (a benchmark opens many).
const (
	freePortLow   = 20000
	freePortHigh  = 32000
	freePortTries = 200
)

// FreePort returns a TCP port free just now on host (localhost: on
// 127.0.0.1 and ::1). Should another take it first, the start fails with
// the port and its holder named.
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

// portFreeOn: port can be listened on at every host this machine has.
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
