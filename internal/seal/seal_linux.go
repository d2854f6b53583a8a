package seal

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Supported says whether this system has the namespaces a seal uses.
const Supported = true

// SupervisorAttr puts a sealed command's supervisor into new mount, PID
// and IPC namespaces; when tailgate is not root, also into a user
// namespace where it is root over those alone (mapped to tailgate's ids).
func SupervisorAttr(attr *syscall.SysProcAttr) {
	nsAttr(attr, syscall.CLONE_NEWNS|syscall.CLONE_NEWPID|syscall.CLONE_NEWIPC)
}

func nsAttr(attr *syscall.SysProcAttr, flags uintptr) {
	attr.Cloneflags |= flags
	if os.Geteuid() == 0 {
		return
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// CommandAttr starts the command (in the supervisor, after Enter) in a
// user and mount namespace of its own: its mounts are copies made into a
// less privileged namespace, which the kernel locks, so the command can
// neither unmount what hides the other side nor reveal a hidden
// directory. It runs as tailgate's uid and gid (all of root's when root).
func CommandAttr(attr *syscall.SysProcAttr, s *Spec) {
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if s.UID == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		attr.UidMappings, attr.GidMappings = all, all
		attr.GidMappingsEnableSetgroups = true
		return
	}
	// The supervisor's namespace maps its root to tailgate's uid.
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: s.UID, HostID: 0, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: s.GID, HostID: 0, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// dumpable serialises Start's dumpable window.
var dumpable sync.Mutex

// Start starts a supervisor given SupervisorAttr. A process that is not
// dumpable (tailgate, to keep children out of its memory) has its /proc
// files owned by root, so that it could not write its child's uid_map:
// tailgate is dumpable only while it starts the child, whose PID
// namespace cannot find tailgate's /proc.
func Start(cmd *exec.Cmd) error {
	if os.Geteuid() != 0 {
		dumpable.Lock()
		defer dumpable.Unlock()
		if was, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err == nil && was != 1 {
			unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
			defer unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		}
	}
	return cmd.Start()
}

// Enter makes the mounts of s and a /proc of the new PID namespace; a
// failed step is an error naming the path: the side does not start.
func Enter(s *Spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private to the %s side: %w", s.Side, err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("the %s side's working directory: %w", s.Side, err)
	}
	held := map[string]int{}
	defer func() {
		for _, fd := range held {
			unix.Close(fd)
		}
	}()
	if err := s.prepare(held); err != nil {
		return err
	}
	if err := s.hide(held); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the %s side's own /proc: %w", s.Side, err)
	}
	// The working directory is looked up again through the new mounts: a
	// directory the side may not see is an error, not a way around them.
	if err := os.Chdir(wd); err != nil {
		return fmt.Errorf("working directory %s is hidden from the %s side", wd, s.Side)
	}
	return nil
}

// prepare does what comes before anything is hidden: it holds open, by
// path, what stays or is pinned (the base tree that a pin reads is hidden
// from the head), making the side's own TMPDIR and /dev/shm, then attaches
// the layers and keeps what stays real in them.
func (s *Spec) prepare(held map[string]int) error {
	sources := slices.Concat(s.Keep, s.KeepReadOnly, s.Real)
	for _, p := range s.Pins {
		sources = append(sources, p.From)
	}
	for _, p := range s.Own {
		// TMPDIR 0700, /dev/shm 1777 as the system's
		err := os.MkdirAll(p.From, 0o700)
		if err == nil && p.Over == "/dev/shm" {
			err = os.Chmod(p.From, 0o1777)
		}
		if err != nil {
			return fmt.Errorf("making the %s side's own %s: %w", s.Side, p.Over, err)
		}
		sources = append(sources, p.From)
	}
	for _, p := range sources {
		if _, ok := held[p]; ok {
			continue
		}
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening %s for the %s side: %w", p, s.Side, err)
		}
		held[p] = fd
	}
	for i, l := range s.Layers {
		err := unix.MoveMount(LayerFD+i, "", unix.AT_FDCWD, l.Dir, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(LayerFD + i)
		if err != nil {
			return fmt.Errorf("giving the %s side its layer over %s: %w", s.Side, l.Dir, err)
		}
	}
	for _, r := range s.Real {
		if err := bindHeld(held[r], r); err != nil {
			return fmt.Errorf("keeping %s the %s side's own: %w", r, s.Side, err)
		}
	}
	return nil
}

// hide hides, mounts over the hidden directories what the side keeps, its
// own TMPDIR and /dev/shm, /dev/null over the sockets and the pins, then
// makes the hidden and the read-only kept ones read-only.
func (s *Spec) hide(held map[string]int) error {
	var ro []string
	hide := slices.Clone(s.Hide) // parents first: one inside a hidden one is skipped
	slices.SortStableFunc(hide, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	for _, h := range hide {
		if _, err := os.Lstat(h); err != nil {
			continue // already inside a hidden directory, or gone
		}
		if err := unix.Mount("tailgate-hidden", h, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=1m"); err != nil {
			return fmt.Errorf("hiding %s from the %s side: %w", h, s.Side, err)
		}
		ro = append(ro, h)
	}
	for _, k := range slices.Concat(s.Keep, s.KeepReadOnly) {
		if err := bindHeld(held[k], k); err != nil {
			return fmt.Errorf("keeping %s visible to the %s side: %w", k, s.Side, err)
		}
	}
	for _, p := range s.Own {
		if err := bindHeld(held[p.From], p.Over); err != nil {
			return fmt.Errorf("giving the %s side its own %s: %w", s.Side, p.Over, err)
		}
	}
	for _, f := range s.Sockets {
		if _, err := os.Lstat(f); err == nil {
			if err := unix.Mount("/dev/null", f, "", unix.MS_BIND, ""); err != nil {
				return fmt.Errorf("hiding %s from the %s side: %w", f, s.Side, err)
			}
		}
	}
	for _, p := range s.Pins {
		if err := pin(held[p.From], p.Over); err != nil {
			return fmt.Errorf("taking %s from %s for the %s side: %w", p.Over, p.From, s.Side, err)
		}
	}
	for _, h := range ro {
		if err := unix.Mount("", h, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("making hidden %s read-only: %w", h, err)
		}
	}
	for _, k := range s.KeepReadOnly {
		if err := remountReadOnly(k); err != nil {
			return fmt.Errorf("making %s read-only for the %s side: %w", k, s.Side, err)
		}
	}
	return nil
}

// bindHeld mounts the directory held open as fd at target, making the
// mount point first where a hidden directory took it away.
func bindHeld(fd int, target string) error {
	if _, err := os.Lstat(target); err != nil {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	}
	return unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), target, "", unix.MS_BIND|unix.MS_REC, "")
}

// layer mounts an overlay on l.Dir, the side's writes in l.Upper (in a
// user namespace with its attributes in user.* xattrs).
func layer(l Layer, userns bool) error {
	for _, p := range []string{l.Dir, l.Upper, l.Work} {
		if strings.ContainsAny(p, ",:\\") {
			return fmt.Errorf("the path %q holds a comma, colon or backslash, which overlayfs options cannot name", p)
		}
	}
	if err := os.MkdirAll(l.Upper, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(l.Work, 0o700); err != nil {
		return err
	}
	opts := "lowerdir=" + l.Dir + ",upperdir=" + l.Upper + ",workdir=" + l.Work + ",index=off"
	if userns {
		opts += ",userxattr"
	}
	// volatile: the layer is the job's alone, never worth a sync of the
	// disk under it when the holder ends (Linux 5.10+).
	if err := unix.Mount("tailgate-layer", l.Dir, "overlay", 0, opts+",volatile"); err != unix.EINVAL {
		return err
	}
	return unix.Mount("tailgate-layer", l.Dir, "overlay", 0, opts)
}

// Trees are copies of the side's layers as its holder mounted them, for
// one command's supervisor to attach (Enter, from LayerFD on). The first
// call starts the holder (Hold) with the command line argv.
//
// One overlay per side, however many of its commands run at once:
// overlays of their own over one upper directory would leave what one
// sees of the other's writes undefined. A command cannot join the
// holder's namespaces instead: only a single-threaded process may enter
// a user namespace, and a Go program never is one.
func (s *Spec) Trees(argv []string) ([]*os.File, error) {
	if len(s.Layers) == 0 {
		return nil, nil
	}
	h := s.holder()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil && h.err == nil {
		h.err = h.start(s, argv)
	}
	if h.err != nil {
		return nil, h.err
	}
	if _, err := h.conn.Write([]byte("t")); err != nil {
		return nil, fmt.Errorf("asking the %s side's holder for its layers: %w", s.Side, err)
	}
	return h.read(s, len(s.Layers))
}

// start starts the holder in namespaces and a process group of its own
// (Ctrl-C reaches tailgate, which ends it) and waits for its layers.
func (h *holder) start(s *Spec, argv []string) error {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	mine, theirs := os.NewFile(uintptr(pair[0]), "holder"), os.NewFile(uintptr(pair[1]), "holder")
	defer theirs.Close()
	conn, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return err
	}
	h.conn = conn.(*net.UnixConn)
	cmd := exec.Command(argv[0], append(argv[1:], s.Encode())...)
	cmd.Env, cmd.ExtraFiles = []string{}, []*os.File{theirs}
	// No parent-death signal: it follows the thread that forked, which
	// may end before the job; the socket's end-of-file does not.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	nsAttr(cmd.SysProcAttr, syscall.CLONE_NEWNS)
	if err := Start(cmd); err != nil {
		h.conn.Close()
		return fmt.Errorf("starting the %s side's holder: %w", s.Side, err)
	}
	h.cmd = cmd
	if _, err := h.read(s, 0); err != nil {
		h.stop()
		return err
	}
	return nil
}

// read reads the holder's answer: "ok" and n files, or why not.
func (h *holder) read(s *Spec, n int) ([]*os.File, error) {
	h.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(4*n))
	m, oobn, _, _, err := h.conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, fmt.Errorf("the %s side's holder ended: %w", s.Side, err)
	}
	var files []*os.File
	if msgs, _ := unix.ParseSocketControlMessage(oob[:oobn]); len(msgs) == 1 {
		fds, _ := unix.ParseUnixRights(&msgs[0])
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "layer"))
		}
	}
	if msg := string(buf[:m]); msg != "ok" || len(files) != n {
		for _, f := range files {
			f.Close()
		}
		return nil, errors.New(strings.TrimPrefix(msg, "failed "))
	}
	return files, nil
}

// Release ends the side's holder (as tailgate's end would); the side
// starts no command after.
func (s *Spec) Release() {
	h := s.holder()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd != nil {
		h.stop()
	}
	h.err = fmt.Errorf("the %s side's job has ended", s.Side)
}

func (h *holder) stop() {
	h.conn.Close() // the holder ends at the socket's end-of-file, else is killed
	cmd := h.cmd
	kill := time.AfterFunc(5*time.Second, func() { cmd.Process.Kill() })
	cmd.Wait()
	kill.Stop()
	h.cmd = nil
}

// Hold is the body of a side's holder (Trees), its socket on fd 3: it
// mounts the layers and answers "ok" (or why not), then each request with
// a copy of each layer (open_tree), until the socket closes.
func Hold(arg string) int {
	s, err := Decode(arg)
	if err == nil {
		err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
	}
	for i := 0; err == nil && i < len(s.Layers); i++ {
		if err = layer(s.Layers[i], s.UID != 0); err != nil {
			err = fmt.Errorf("giving the %s side a layer of its own over %s (overlayfs; in a user namespace it needs Linux 5.11 or later): %w", s.Side, s.Layers[i].Dir, err)
		}
	}
	if err != nil {
		unix.Sendmsg(3, []byte("failed "+err.Error()), nil, nil, 0)
		return 1
	}
	var fds []int
	for {
		var oob []byte
		if len(fds) > 0 {
			oob = unix.UnixRights(fds...)
		}
		err := unix.Sendmsg(3, []byte("ok"), oob, nil, 0)
		for _, fd := range fds {
			unix.Close(fd)
		}
		if err != nil || !request() {
			return 0
		}
		fds = fds[:0]
		for _, l := range s.Layers {
			fd, err := unix.OpenTree(unix.AT_FDCWD, l.Dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
			if err != nil {
				unix.Sendmsg(3, []byte(fmt.Sprintf("failed copying the %s side's layer over %s: %v", s.Side, l.Dir, err)), nil, nil, 0)
				return 1
			}
			fds = append(fds, fd)
		}
	}
}

// request waits for the next request on fd 3: false once it closed.
func request() bool {
	b := make([]byte, 8)
	for {
		n, err := unix.Read(3, b)
		if err != unix.EINTR {
			return err == nil && n > 0
		}
	}
}

// pin mounts what fd holds open over over, read-only.
func pin(fd int, over string) error {
	st, err := os.Lstat(over)
	if err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND)
	switch {
	case st.IsDir():
		flags |= unix.MS_REC
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file or a directory", over)
	}
	if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), over, "", flags, ""); err != nil {
		return err
	}
	return remountReadOnly(over)
}

// remountReadOnly makes a bind mount read-only, keeping its flags (a user
// namespace may not drop nosuid, nodev or noexec).
func remountReadOnly(path string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for stFlag, msFlag := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME} {
		if st.Flags&stFlag != 0 {
			flags |= msFlag
		}
	}
	return unix.Mount("", path, "", flags, "")
}

// HostPID is the pid in tailgate's namespace of the child that supervisor
// started as nsPID in its own.
func HostPID(supervisor, nsPID int) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if ppid, nspids, ok := statusIDs(filepath.Join("/proc", e.Name(), "status")); ok && ppid == supervisor && len(nspids) > 1 && nspids[len(nspids)-1] == nsPID {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no process started by the supervisor (pid %d) is pid %d in its namespace", supervisor, nsPID)
}

// statusIDs reads the PPid and NSpid lines of a /proc/<pid>/status file.
func statusIDs(path string) (ppid int, nspids []int, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, false
	}
	for line := range strings.Lines(string(data)) {
		key, val, _ := strings.Cut(line, ":")
		switch key {
		case "PPid":
			ppid, _ = strconv.Atoi(strings.TrimSpace(val))
		case "NSpid":
			for _, f := range strings.Fields(val) {
				n, err := strconv.Atoi(f)
				if err != nil {
					return 0, nil, false
				}
				nspids = append(nspids, n)
			}
		}
	}
	return ppid, nspids, nspids != nil
}

// Shared are the runner's directories whose writes a side keeps to itself
// (Job.Shared): $HOME, /tmp and each PATH directory tailgate could write,
// so that a program the head puts there never resolves for the base. A
// bin or sbin brings its prefix where that is writable too and has no
// mount below it (/usr/local: a Python's site-packages lie there). Each is
// resolved; one inside another, relative ones and / are left out.
func Shared(environ []string) []string {
	var dirs, mounts []string
	if data, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for line := range strings.Lines(string(data)) {
			if f := strings.Fields(line); len(f) > 4 {
				mounts = append(mounts, f[4])
			}
		}
	}
	// mountedBelow: an overlay on dir would hide what is mounted below it
	// (without mountinfo, anything might be).
	mountedBelow := func(dir string) bool {
		return mounts == nil || slices.ContainsFunc(mounts, func(m string) bool { return m != dir && within(m, dir) })
	}
	home := Getenv(environ, "HOME")
	for _, d := range append([]string{home, "/tmp"}, filepath.SplitList(Getenv(environ, "PATH"))...) {
		if !filepath.IsAbs(d) || (d != home && d != "/tmp" && unix.Access(d, unix.W_OK) != nil) {
			continue
		}
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if b, p := filepath.Base(r), filepath.Dir(r); d != home && (b == "bin" || b == "sbin") && p != "/" && unix.Access(p, unix.W_OK) == nil && !mountedBelow(p) {
			r = p
		}
		if st, err := os.Stat(r); err == nil && st.IsDir() && r != "/" && !slices.Contains(dirs, r) {
			dirs = append(dirs, r)
		}
	}
	return slices.DeleteFunc(slices.Clone(dirs), func(d string) bool {
		return slices.ContainsFunc(dirs, func(o string) bool { return o != d && within(d, o) })
	})
}

// RootSockets are this machine's container engine sockets (docker,
// containerd, podman, DOCKER_HOST, CONTAINER_HOST): whoever reaches one can
// start a privileged container, and so stop or rewrite the other side.
func RootSockets(environ []string) []string {
	var out []string
	cands := []string{"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock", "/var/run/containerd/containerd.sock",
		"/run/podman/podman.sock", "/var/run/podman/podman.sock"}
	if xdg := Getenv(environ, "XDG_RUNTIME_DIR"); xdg != "" {
		cands = append(cands, filepath.Join(xdg, "docker.sock"), filepath.Join(xdg, "podman/podman.sock"), filepath.Join(xdg, "containerd/containerd.sock"))
	}
	for _, name := range []string{"DOCKER_HOST", "CONTAINER_HOST"} {
		if p, ok := strings.CutPrefix(Getenv(environ, name), "unix://"); ok {
			cands = append(cands, p)
		}
	}
	for _, c := range cands {
		r, err := filepath.EvalSymlinks(c)
		if st, serr := os.Stat(r); err == nil && serr == nil && st.Mode().Type() == os.ModeSocket && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
