package vegeta

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// craftedGob is a gob results stream whose one result claims a Headers map
// of 2^40 entries in a message of a few bytes: a file that asks its decoder
// for far more memory than it holds.
func craftedGob(t testing.TB) []byte {
	t.Helper()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	stream := gobStream(t, []Result{{Code: 200, Timestamp: t0, Latency: time.Millisecond,
		Method: "GET", URL: "http://127.0.0.1/", Headers: map[string][]string{"A": {"b"}}}})
	msgs := splitGob(t, stream)
	last := msgs[len(msgs)-1]
	// The map: count 1, key "A", value ["b"].
	at := bytes.Index(last, []byte("\x01\x01A\x01\x01b"))
	if at < 0 {
		t.Fatal("headers map not found in the encoded result")
	}
	huge := []byte{0xfb, 0x01, 0x00, 0x00, 0x00, 0x00} // 2^40, as gob writes a uint
	forged := append(append(append([]byte{}, last[:at]...), huge...), last[at+1:]...)
	var out []byte
	for _, m := range msgs[:len(msgs)-1] {
		out = append(out, gobFrame(m)...)
	}
	return append(out, gobFrame(forged)...)
}

// splitGob cuts a gob stream into its messages (without their length).
func splitGob(t testing.TB, b []byte) [][]byte {
	t.Helper()
	var msgs [][]byte
	for len(b) > 0 {
		n, w := gobUint(b)
		if w == 0 || uint64(len(b)-w) < n {
			t.Fatalf("bad gob framing at %d bytes from the end", len(b))
		}
		msgs = append(msgs, b[w:w+int(n)])
		b = b[w+int(n):]
	}
	return msgs
}

func gobUint(b []byte) (uint64, int) {
	if b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	n := int(-int8(b[0]))
	if n > 8 || len(b) < 1+n {
		return 0, 0
	}
	var v uint64
	for _, c := range b[1 : 1+n] {
		v = v<<8 | uint64(c)
	}
	return v, 1 + n
}

// gobFrame prefixes a message with its length, as gob's encoder does.
func gobFrame(m []byte) []byte {
	n := uint64(len(m))
	if n < 0x80 {
		return append([]byte{byte(n)}, m...)
	}
	var be []byte
	for ; n > 0; n >>= 8 {
		be = append([]byte{byte(n)}, be...)
	}
	return append(append([]byte{byte(-int8(len(be)))}, be...), m...)
}

// allocated is how many bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// gobAllocBudget is what decoding a gob stream of n bytes may allocate:
// a fixed part for the run's histograms and the decoder, and a share per
// byte the file holds. A file claiming more than it holds must not get it.
// The fixed part includes the one allocation encoding/gob makes on a claim
// before checking it: a type definition's list of fields, capped by gob at
// 10 MiB (the decoder stops at the first claim the bytes do not back).
func gobAllocBudget(n int) uint64 { return 8<<20 + 10<<20 + 64*uint64(n) }

func TestGobClaimingMoreThanItHoldsIsRefusedCheaply(t *testing.T) {
	crafted := craftedGob(t)
	var err error
	got := allocated(func() { _, err = Results{}.Import("crafted.gob", bytes.NewReader(crafted)) })
	if _, ok := importertest.Rejection(err); !ok {
		t.Fatalf("crafted stream: err = %v, want a typed rejection", err)
	}
	if got > gobAllocBudget(len(crafted)) {
		t.Fatalf("a %d-byte stream allocated %d bytes, budget %d", len(crafted), got, gobAllocBudget(len(crafted)))
	}
}

func TestGobMessageLengthBeyondTheFileIsACut(t *testing.T) {
	stream := gobStream(t, sampleResults())
	// A fifth message that claims 60 MiB and holds 3 bytes.
	cut := append(append([]byte{}, stream...), 0xfc, 0x03, 0xc0, 0x00, 0x00, 'a', 'b', 'c')
	var run *result.Run
	var err error
	got := allocated(func() { run, err = Results{}.Import("cut.gob", bytes.NewReader(cut)) })
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 4 || !strings.Contains(strings.Join(run.Notes, " "), "cut") {
		t.Fatalf("requests %d, notes %q; want the 4 whole results and a note of the cut", run.Requests.Total, run.Notes)
	}
	if got > gobAllocBudget(len(cut)) {
		t.Fatalf("allocated %d bytes for a %d-byte stream", got, len(cut))
	}
}

func TestGobMessageOverTheLimitIsRefused(t *testing.T) {
	stream := gobStream(t, sampleResults())
	huge := append(append([]byte{}, stream...), 0xfc, 0x04, 0x00, 0x00, 0x01) // 64 MiB + 1
	_, err := Results{}.Import("huge.gob", bytes.NewReader(huge))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "64 MiB") {
		t.Fatalf("err = %v, want a syntax error naming the 64 MiB limit", err)
	}
}

// FuzzVegetaGob mutates gob streams (vegeta attack output): whatever the
// bytes, a run or a typed error, and no more memory than the bytes pay
// for. Run it under a memory limit (bench/fuzz.sh does), so that an
// allocation the budget misses still fails.
func FuzzVegetaGob(f *testing.F) {
	f.Add(gobStream(f, sampleResults()))
	f.Add(craftedGob(f))
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("vegeta-results-gob")...)
	f.Fuzz(func(t *testing.T, data []byte) {
		var run *result.Run
		var err error
		got := allocated(func() { run, err = Results{}.Import("fuzz.gob", bytes.NewReader(data)) })
		importertest.CheckOutcome(t, run, err)
		if got > gobAllocBudget(len(data)) {
			t.Fatalf("a %d-byte stream allocated %d bytes, budget %d", len(data), got, gobAllocBudget(len(data)))
		}
	})
}
