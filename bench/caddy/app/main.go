// Command app is Caddy v2 (a server this project did not write) with its
// standard modules and one more, burn: a handler that does burnRounds
// SHA-256 compressions per request before passing it on, set at build time
// (-ldflags "-X main.burnRounds=N"), so that builds differ only in the
// work on every request's path. The Caddyfile places it with `burn`.
package main

import (
	"crypto/sha256"
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var burnRounds = "0"

// rounds is burnRounds parsed once, off the request path.
var rounds, _ = strconv.Atoi(burnRounds)

func init() {
	caddy.RegisterModule(Burn{})
	httpcaddyfile.RegisterHandlerDirective("burn", func(httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		return new(Burn), nil
	})
	httpcaddyfile.RegisterDirectiveOrder("burn", httpcaddyfile.Before, "header")
}

// Burn is the injected work.
type Burn struct{}

var _ caddyhttp.MiddlewareHandler = (*Burn)(nil)

// CaddyModule says where Caddy finds the handler.
func (Burn) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.burn", New: func() caddy.Module { return new(Burn) }}
}

func (*Burn) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	// every build sets the header, so that they differ in the rounds alone;
	// it keeps the work from being optimised away
	w.Header().Set("X-Burn", string('a'+rune(burn(rounds)%26)))
	return next.ServeHTTP(w, r)
}

// burn does rounds SHA-256 compressions of a chained 32-byte block and
// returns a byte of the result.
func burn(rounds int) byte {
	var sum [32]byte
	for range rounds {
		sum = sha256.Sum256(sum[:])
	}
	return sum[0]
}

func main() { caddycmd.Main() }
