package target

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"
)

// The process that answers on the target's port must be the one tailgate
// measures. Before a start, the port must be free; after ready, the socket
// that listens on it must belong to the started process tree. Who holds a
// socket comes from Linux procfs: /proc/net/tcp{,6} give the inode of each
// listening socket, and /proc/<pid>/fd links name the inodes a process
// holds. Without procfs nothing is claimed.

// targetPort is the TCP port of a target URL and the hosts it is probed
// on; ok is false for a URL without a usable host.
func targetPort(baseURL string) (hosts []string, port int, ok bool) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return nil, 0, false
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
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return []string{"127.0.0.1", "::1"}, port, true
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, 0, false // not this machine: nothing to probe here
	}
	return []string{host}, port, true
}

// checkPortFree fails when something already listens on the target's
// port: then that process, not the one about to start, would answer.
func checkPortFree(baseURL string) error {
	hosts, port, ok := targetPort(baseURL)
	if !ok {
		return nil
	}
	for _, h := range hosts {
		ln, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
		if err == nil {
			ln.Close()
			continue
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			return &StepError{Step: StepStart, Err: fmt.Errorf("port %d of %s is already in use by %s: stop it, or give the target another port", port, baseURL, describeHolders(port))}
		}
	}
	return nil
}

// describeHolders names the processes that hold port, for messages: those
// listening on it, else those whose connections use it as their local port.
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

// describeProcess is "pid 123 (./server --port 8080)".
func describeProcess(pid int) string {
	return fmt.Sprintf("pid %d (%s)", pid, processCommand(pid))
}

// processCommand is a process's command line, printable and at most 120
// characters.
func processCommand(pid int) string {
	s := strings.Join(strings.Fields(readCmdline(pid)), " ")
	if s == "" {
		return "command unknown"
	}
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// tcpListen is the socket state LISTEN in /proc/net/tcp.
const tcpListen = "0A"

// portSockets returns the inodes of the TCP sockets on a loopback or
// wildcard local address and port: those listening, or (listening false)
// those in any other state, such as a connection's local end.
func portSockets(port int, listening bool) (inodes map[uint64]bool, ok bool) {
	inodes = map[uint64]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(procRoot, "net", name))
		if err != nil {
			continue
		}
		ok = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if inode, state, match := socketLine(sc.Text(), port); match && (state == tcpListen) == listening {
				inodes[inode] = true
			}
		}
		f.Close()
	}
	return inodes, ok
}

// socketLine parses one line of /proc/net/tcp{,6} (see proc(5)):
// "sl local_address rem_address st … uid timeout inode …". It matches a
// socket of a process (inode ≠ 0) on port at a loopback or wildcard
// address.
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

// socketHolders returns the processes, among pids (every process when
// pids is nil), that hold one of the socket inodes. Processes whose file
// descriptors cannot be read (another user's) are not seen.
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
	var out []int
	for _, pid := range pids {
		if holdsSocket(pid, inodes) {
			out = append(out, pid)
		}
	}
	return out
}

func holdsSocket(pid int, inodes map[uint64]bool) bool {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
		if err == nil && inodes[n] {
			return true
		}
	}
	return false
}

// errNotMeasured says why the CPU and memory of a target are not measured
// although its pid is known.
type errNotMeasured struct{ why string }

func (e errNotMeasured) Error() string { return e.why }

// checkOwner finds who answers on the target's port after it is ready.
// The process group pgid, led by the supervisor (or by the command when
// started directly), and its process tree are the target tailgate
// started; pid is the command's own process, for messages. It returns:
//   - nil, nil when that tree holds the listening socket, or when this
//     cannot be checked (no procfs, not a loopback URL);
//   - a not-measured reason when another process holds it that started
//     after the target (a container runtime's port proxy, a daemon the
//     command left behind) or no process here does: the load may still
//     run, but CPU and memory of the tree would be someone else's;
//   - an error when a process that was already running before the target
//     holds it: tailgate would measure a stranger.
func checkOwner(baseURL string, pgid, pid int) (notMeasured error, err error) {
	_, port, ok := targetPort(baseURL)
	if !ok {
		return nil, nil
	}
	inodes, ok := portSockets(port, true)
	if !ok {
		return nil, nil
	}
	all, aerr := allStats()
	if aerr != nil {
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

// treeAndGroup lists the members of group pgid and all their descendants,
// with the start time of the group's leader.
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
