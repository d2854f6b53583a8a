// Command app serves go-httpbin (a service this project did not write) on
// the address given as its first argument, with an injected CPU
// regression: burnRounds SHA-256 compressions per request, set at build
// time (-ldflags "-X main.burnRounds=N"), so that builds differ only in
// the work on every request's path.
package main

import (
	"crypto/sha256"
	"log"
	"net/http"
	"os"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
)

var burnRounds = "0"

func main() {
	rounds := 0
	for _, c := range burnRounds {
		rounds = 10*rounds + int(c-'0')
	}
	h := httpbin.New().Handler()
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// every build sets the header, so that they differ in the rounds alone;
		// it keeps the work from being optimised away
		w.Header().Set("X-Burn", string('a'+rune(burn(rounds)%26)))
		h.ServeHTTP(w, r)
	})
	if len(os.Args) < 2 {
		log.Fatal("usage: app ADDR")
	}
	log.Fatal(http.ListenAndServe(os.Args[1], slow))
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
