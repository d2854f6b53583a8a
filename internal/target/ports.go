package target

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/printable"
)

// The process that answers on the target's port must be the one measured:
// free before a start, held by the started tree after ready. Who holds a
// socket comes from procfs (/proc/net/tcp{,6} inodes, /proc/<pid>/fd
// links); without it nothing is claimed.

// targetPort is a loopback target URL's TCP port and the hosts to probe.
func targetPort(baseURL string) (hosts []string, port int, ok bool) {
	u, err := url.Parse(baseURL)
	if err != nil || !config.IsLoopback(u.Hostname()) {
		return nil, 0, false // not this machine: nothing to probe here
	}
	switch p := u.Port(); {
	case p != "":
		port, err = strconv.Atoi(p)
		if err != nil {
			return nil, 0, false
		}
	case u.Scheme == "https":
		port = 443
	default:
		port = 80
	}
	return loopbackHosts(u.Hostname()), port, true
}

// loopbackHosts are the addresses of a loopback host: localhost is two.
func loopbackHosts(host string) []string {
	if strings.EqualFold(host, "localhost") {
		return []string{"127.0.0.1", "::1"}
	}
	return []string{host}
}

// tryListen listens on host and port, and closes what it opened.
func tryListen(host string, port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err == nil {
		ln.Close()
	}
	return err
}

func checkPortFree(baseURL string) error {
	hosts, port, ok := targetPort(baseURL)
	if !ok {
		return nil
	}
	for _, h := range hosts {
		if err := tryListen(h, port); errors.Is(err, syscall.EADDRINUSE) {
			return &StepError{Step: StepStart, Err: portTaken(fmt.Sprintf("port %d of %s is already in use by %s: stop it, or give the target another port", port, baseURL, describeHolders(port)))}
		}
	}
	return nil
}

// portTaken is the error of a start refused because another process holds
// the target's port.
type portTaken string

func (e portTaken) Error() string { return string(e) }

// PortTaken reports whether a start failed because another process held
// the port: a port drawn by FreePort may be taken between the draw and
// the start, and is then drawn again.
func PortTaken(err error) bool {
	var e portTaken
	return errors.As(err, &e)
}

// describeHolders names the processes listening on port, else those whose
// connections use it as their local port.
func describeHolders(port int) string {
	for _, listening := range []bool{true, false} {
		inodes, ok := portSockets(port, listening)
		if !ok {
			return "another process"
		}
		holders := socketHolders(inodes, nil)
		if len(holders) == 0 {
			continue
		}
		names := make([]string, len(holders))
		for i, pid := range holders {
			names[i] = describeProcess(pid)
		}
		if !listening {
			return "a connection of " + strings.Join(names, ", ") + " (as its local port)"
		}
		return strings.Join(names, ", ")
	}
	return "a process tailgate cannot see (another user's, or in another network namespace)"
}

// describeProcess is "pid 123 (./server --port 8080)", the command line
// printable and at most 120 characters.
func describeProcess(pid int) string {
	s := cmp.Or(strings.Join(strings.Fields(readCmdline(pid)), " "), "command unknown")
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
	return fmt.Sprintf("pid %d (%s)", pid, printable.Clip(s, 120))
}

// tcpListen is the socket state LISTEN in /proc/net/tcp.
const tcpListen = "0A"

// portSockets are the inodes of the TCP sockets on a loopback or wildcard
// address and port, listening or (listening false) in any other state.
func portSockets(port int, listening bool) (inodes map[uint64]bool, ok bool) {
	inodes = map[uint64]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(filepath.Join(procRoot, "net", name))
		if err != nil {
			continue
		}
		ok = true
		for line := range strings.Lines(string(data)) {
			if inode, state, match := socketLine(line, port); match && (state == tcpListen) == listening {
				inodes[inode] = true
			}
		}
	}
	return inodes, ok
}

// socketLine parses a line of /proc/net/tcp{,6} ("sl local_address
// rem_address st … inode …") and matches a process's socket (inode ≠ 0) on
// port at a loopback or wildcard address.
func socketLine(line string, port int) (inode uint64, state string, match bool) {
	f := strings.Fields(line)
	if len(f) < 10 {
		return 0, "", false
	}
	addr, portHex, ok := strings.Cut(f[1], ":")
	p, err := strconv.ParseUint(portHex, 16, 16)
	if !ok || err != nil || int(p) != port {
		return 0, "", false
	}
	ip, ok := parseProcIP(addr)
	if !ok || !(ip.IsLoopback() || ip.IsUnspecified()) {
		return 0, "", false
	}
	inode, err = strconv.ParseUint(f[9], 10, 64)
	return inode, f[3], err == nil && inode != 0
}

// parseProcIP reads an address of /proc/net/tcp{,6}: the kernel prints
// each 32-bit word of it as a hex number in the machine's byte order.
func parseProcIP(s string) (net.IP, bool) {
	raw, err := hex.DecodeString(s)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return ip, true
}

// socketHolders are the processes among pids (nil: all) that hold one of
// the inodes; another user's are not seen.
func socketHolders(inodes map[uint64]bool, pids []int) []int {
	if len(inodes) == 0 {
		return nil
	}
	if pids == nil {
		all, err := allStats()
		if err != nil {
			return nil
		}
		for _, st := range all {
			pids = append(pids, st.PID)
		}
	}
	return slices.DeleteFunc(slices.Clone(pids), func(pid int) bool {
		dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
		fds, _ := os.ReadDir(dir)
		return !slices.ContainsFunc(fds, func(fd os.DirEntry) bool {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			n, perr := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
			return err == nil && strings.HasPrefix(link, "socket:[") && perr == nil && inodes[n]
		})
	})
}

type errNotMeasured struct{ why string }

func (e errNotMeasured) Error() string { return e.why }

// checkOwner finds who answers on the target's port after ready; group
// pgid and its tree are the target started, pid the command's (for
// messages). It returns:
//   - nil, nil when that tree holds the listening socket, or it cannot be
//     checked (no procfs, not a loopback URL);
//   - a not-measured reason when a process that started after the target
//     (a port proxy, a daemon it left) or none here holds it: the load may
//     run, but the tree's CPU and memory would be someone else's;
//   - an error when a process already running before the target holds it.
func checkOwner(baseURL string, pgid, pid int) (notMeasured error, err error) {
	_, port, ok := targetPort(baseURL)
	if !ok {
		return nil, nil
	}
	inodes, ok := portSockets(port, true)
	all, aerr := allStats()
	if !ok || aerr != nil {
		return nil, nil
	}
	if len(inodes) == 0 {
		return errNotMeasured{fmt.Sprintf("no process in this network namespace listens on port %d (a container's port forward?), so the process tree tailgate measures is not the one that answers", port)}, nil
	}
	members, rootStart := treeAndGroup(all, pgid)
	if len(socketHolders(inodes, members)) > 0 {
		return nil, nil
	}
	strangers := socketHolders(inodes, nil)
	if len(strangers) == 0 {
		return errNotMeasured{fmt.Sprintf("port %d is held by a process tailgate cannot see (another user's, such as a container runtime's port proxy), not by the process tree it measures (pid %d)", port, pid)}, nil
	}
	starts := map[int]uint64{}
	for _, st := range all {
		starts[st.PID] = st.StartTime
	}
	for _, s := range strangers {
		if starts[s] < rootStart {
			return nil, fmt.Errorf("port %d is answered by %s, which was running before the target (pid %d) started: tailgate will not measure another process; stop it, or give the target another port", port, describeProcess(s), pid)
		}
	}
	return errNotMeasured{fmt.Sprintf("port %d is held by %s, outside the process tree tailgate measures (pid %d)", port, describeProcess(strangers[0]), pid)}, nil
}

// treeAndGroup are group pgid's members and descendants, with the
// leader's start time.
func treeAndGroup(all []procStat, pgid int) (pids []int, leaderStart uint64) {
	seen := map[int]bool{}
	for _, st := range all {
		if st.PGRP != pgid || seen[st.PID] {
			continue
		}
		for _, m := range tree(all, st.PID) {
			if !seen[m.PID] {
				seen[m.PID] = true
				pids = append(pids, m.PID)
			}
		}
		if st.PID == pgid {
			leaderStart = st.StartTime
		}
	}
	return pids, leaderStart
}

// Free ports are drawn below Linux's ephemeral range (32768–60999), whose
// ports the kernel hands to outgoing connections (a benchmark opens many).
const (
	freePortLow   = 20000
	freePortHigh  = 32000
	freePortTries = 200
)

// FreePort returns a TCP port free just now on host (localhost: on
// 127.0.0.1 and ::1). Should another take it first, the start fails with
// the port and its holder named (PortTaken).
func FreePort(host string) (int, error) {
	for range freePortTries {
		port := freePortLow + rand.IntN(freePortHigh-freePortLow)
		if portFreeOn(loopbackHosts(host), port) {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port in %d–%d on %s after %d tries", freePortLow, freePortHigh, host, freePortTries)
}

// portFreeOn: port can be listened on at every host this machine has.
func portFreeOn(hosts []string, port int) bool {
	for _, h := range hosts {
		if err := tryListen(h, port); err != nil && (errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EACCES) || len(hosts) == 1) {
			return false
		}
	}
	return true
}
