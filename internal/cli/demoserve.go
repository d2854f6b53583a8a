package cli

import (
	"context"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/demo"
)

// cmdDemoServe runs the demo service until interrupted: the target process `tailgate demo` starts.
func cmdDemoServe(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("demo-serve", "demo-serve --addr 127.0.0.1:PORT [--slowdown 30%] [--async] [--auth]", e.stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address` (loopback)")
	slow := fs.String("slowdown", "0%", "extra CPU work per request, e.g. `30%`")
	async := fs.Bool("async", false, "assign answers 202 and commits a little later")
	work := fs.Int("work", 0, "base CPU work per request in hash `rounds` (default demo.DefaultWork)")
	auth := fs.Bool("auth", false, "require a bearer token from POST /login (users user-001 … user-100, the password in $"+demoPasswordEnv+")")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := demo.ParseSlowdown(*slow)
	if err != nil {
		return usageErr("--slowdown: %v", err)
	}
	opt := demo.Options{Slowdown: s, Async: *async, Work: *work, Auth: *auth, Log: e.stderr}
	if *auth {
		if opt.Password = e.getenv(demoPasswordEnv); opt.Password == "" {
			return usageErr("--auth: set the users' password in $%s", demoPasswordEnv)
		}
	}
	fmt.Fprintf(e.stderr, "demo service on http://%s (slowdown %.0f%%, async %v, auth %v)\n", *addr, 100*s, *async, *auth)
	return demo.Serve(ctx, *addr, opt, nil)
}

// demoPasswordEnv holds the demo users' password of `demo-serve --auth`.
const demoPasswordEnv = "TAILGATE_DEMO_PASSWORD"
