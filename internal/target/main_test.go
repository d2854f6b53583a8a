package target

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/demo"
)

// demoAddrEnv makes the test binary run as the demo service on the address
// it names, so tests can start a real HTTP server process.
const (
	demoAddrEnv     = "TAILGATE_TARGET_TEST_DEMO_ADDR"
	demoSlowdownEnv = "TAILGATE_TARGET_TEST_DEMO_SLOWDOWN"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(demoAddrEnv); addr != "" {
		os.Exit(serveDemo(addr))
	}
	os.Exit(m.Run())
}

func serveDemo(addr string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	fmt.Println("demo service starting on", addr)
	var opt demo.Options
	if s := os.Getenv(demoSlowdownEnv); s != "" {
		v, err := demo.ParseSlowdown(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		opt.Slowdown = v
	}
	if err := demo.Serve(ctx, addr, opt, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("demo service stopped")
	return 0
}

// freeAddr returns a loopback address with a port that was free just now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// groupMembers lists the running (not zombie) processes of group pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	all, err := allStats()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, st := range all {
		if st.PGRP == pgid && !st.gone() {
			pids = append(pids, st.PID)
		}
	}
	return pids
}

// running reports whether pid is in /proc and not a zombie.
func running(pid int) bool {
	st, err := readStat(pid)
	return err == nil && !st.gone()
}

func itoa(n int) string { return strconv.Itoa(n) }
