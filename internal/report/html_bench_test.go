package report

import (
	"io"
	"testing"
)

// BenchmarkWriteHTML renders the HTML report of the stored-baseline
// regression: eight figures and the page.
func BenchmarkWriteHTML(b *testing.B) {
	in := judgedCases()["regression"]
	for b.Loop() {
		if err := WriteHTML(io.Discard, in); err != nil {
			b.Fatal(err)
		}
	}
}
