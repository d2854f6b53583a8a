package target

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/demo"
	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// The test binary stands in for the processes tailgate starts:
//   - with demoAddrEnv set it runs as the demo service on that address, so
//     tests can start a real HTTP server process;
//   - with supervisorArg as its first argument it is the supervisor, as
//     tailgate's hidden subcommand is;
//   - with parentEnv set it is a tiny tailgate that starts a target and
//     waits to be killed (children_test.go).
const (
	demoAddrEnv     = "TAILGATE_TARGET_TEST_DEMO_ADDR"
	demoSlowdownEnv = "TAILGATE_TARGET_TEST_DEMO_SLOWDOWN"
	supervisorArg   = "tailgate-target-test-supervise"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		// caught, not ignored: an ignored signal would stay ignored in the command
		signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, os.Interrupt)
		os.Exit(Supervise(os.Args[2:]))
	}
	if evil := os.Getenv(replacedEnv); evil != "" {
		os.Exit(actReplaced(evil))
	}
	if spec := os.Getenv(holdingEnv); spec != "" {
		os.Exit(actHolding(spec))
	}
	if spec := os.Getenv(parentEnv); spec != "" {
		os.Exit(actAsTailgate(spec))
	}
	if addr := os.Getenv(demoAddrEnv); addr != "" {
		os.Exit(serveDemo(addr))
	}
	os.Exit(m.Run())
}

// testExe is this test binary.
func testExe(t *testing.T) string { return targettest.Executable(t) }

// supervised starts children as tailgate does: under the supervisor (this
// test binary), with this process's environment.
func supervised(t *testing.T) Children {
	return Children{Environ: os.Environ(), Supervisor: OwnSupervisor(supervisorArg)}
}

// direct starts children without a supervisor (the fallback).
func direct() Children { return Children{Environ: os.Environ()} }

// serverTarget is a target started by a shell script in which $SERVE runs
// this test binary as the demo service on the target's address (append &
// to run it in the background), and its URL.
func serverTarget(t *testing.T, script string) (config.Target, string) {
	t.Helper()
	addr := freeAddr(t)
	return config.Target{
		Start: &config.Start{
			Command: config.Command{Shell: script},
			Env:     map[string]string{"SERVE": testExe(t) + " -test.run=^$", demoAddrEnv: addr},
		},
		Ready: &config.Ready{Path: "/health", Timeout: config.Duration(20 * time.Second)},
	}, "http://" + addr
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

func freeAddr(t *testing.T) string { return targettest.FreeAddr(t) }

// startOnFreeAddr starts tgt on a loopback address drawn now, drawing
// again where a process of a test running beside it took the port between
// the draw and the start (as the runner's start draws again): the tests
// that call it judge how a start fails for other reasons.
func startOnFreeAddr(t *testing.T, tgt config.Target, o StartOptions) (*Process, error) {
	t.Helper()
	for range 3 {
		p, err := Start(context.Background(), "http://"+freeAddr(t), tgt, o)
		if !PortTaken(err) {
			return p, err
		}
	}
	t.Fatal("3 drawn ports were taken before the start")
	return nil, nil
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

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
