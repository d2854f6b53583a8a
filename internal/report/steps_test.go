package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// The reviewer's view: each step base → head with its change, the step
// that moved most first, in the terminal, the comment (compact: the rest
// collapsed) and the HTML page (a change column per figure).
func TestStepsBaseToHead(t *testing.T) {
	t.Parallel()
	in := cases()["ab"]
	var txt bytes.Buffer
	if err := WriteText(&txt, in); err != nil {
		t.Fatal(err)
	}
	text := txt.String()
	list := strings.Index(text, "  list    3200 → 3200  9.90 → 12.87 ms, +30.0 %  14.41 → 18.73 ms, +30.0 %")
	login := strings.Index(text, "  login ")
	if list < 0 || login < 0 || list > login {
		t.Errorf("the terminal does not show list base → head first, then login:\n%s", text)
	}
	if !strings.Contains(text, "0.00 → 1.00 %, +1.00 pp") {
		t.Errorf("the terminal does not show update's error rate base → head:\n%s", text)
	}

	md := Markdown(in)
	visible, collapsed, ok := strings.Cut(md, "<details><summary>2 more steps (they moved less)</summary>")
	if !ok {
		t.Fatalf("the comment does not collapse the steps past the first %d:\n%s", maxCommentSteps, md)
	}
	if n := strings.Count(visible, " ms<br>") / 2; n != maxCommentSteps {
		t.Errorf("the comment shows %d steps base → head, want %d", n, maxCommentSteps)
	}
	if !strings.Contains(visible, "| list | 9.90 → 12.87 ms<br>**+30.0 %** | 14.41 → 18.73 ms<br>**+30.0 %** | none |") ||
		strings.Index(visible, "| list |") > strings.Index(visible, "| login |") {
		t.Errorf("the comment does not show list first:\n%s", visible)
	}
	for _, quiet := range []string{"| search |", "| delete |"} {
		if strings.Contains(visible, quiet) || !strings.Contains(collapsed, quiet) {
			t.Errorf("%s, which did not move, is not collapsed", quiet)
		}
	}

	var page bytes.Buffer
	if err := WriteHTML(&page, in); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{`<th class="num">p95</th><th class="num">change</th>`,
		`<td class="text">list</td><td class="num">3200 → 3200</td><td class="num">9.90 → 12.87 ms</td><td class="num change">&#43;30.0 %</td>`,
		`<td class="num">0.00 → 1.00 %</td><td class="num change">&#43;1.00 pp</td>`, `<td class="num">none</td><td class="num change"></td></tr>`} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML page lacks %q", want)
		}
	}
	if strings.Index(html, ">list<") > strings.Index(html, ">login<") {
		t.Error("the HTML page does not show list first")
	}
}

// A check against a stored baseline has no per-step figures of the base
// side: the reports show the head's, as before.
func TestStepsHeadOnlyWithoutBaseSteps(t *testing.T) {
	t.Parallel()
	in := cases()["regression"]
	var txt bytes.Buffer
	if err := WriteText(&txt, in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "Per step (head, 5 runs):") || strings.Contains(txt.String(), "base → head (medians") {
		t.Errorf("the terminal shows no head-only step table:\n%s", txt.String())
	}
	if md := Markdown(in); !strings.Contains(md, "Per-step figures and error classes of the head runs") {
		t.Errorf("the comment lacks the head's collapsed step table:\n%s", md)
	}
}

// A step one side did not run is shown with n/a on that side and no
// change; a change is on the ratio scale, never below −100 %.
func TestStepChangeMissingSideAndRatio(t *testing.T) {
	t.Parallel()
	run := func(steps ...result.Step) []result.Run { return []result.Run{{Steps: steps}} }
	cs := stepChanges(run(fixtureStep("old", 10, 0, time.Millisecond), fixtureStep("both", 10, 0, time.Millisecond)),
		run(fixtureStep("both", 10, 5, 1000*time.Millisecond), fixtureStep("new", 10, 0, time.Millisecond)))
	if len(cs) != 3 || cs[0].Name != "both" || cs[1].Name != "new" || cs[2].Name != "old" {
		t.Fatalf("steps joined as %+v, want both, new (head order), then old (base only)", cs)
	}
	if got := figureCell(cs[1].P50, "ms", true); got != "n/a → 1.98 ms" {
		t.Errorf("a head-only step's p50 = %q", got)
	}
	if got := requestsCell(cs[2]); got != "10 → n/a" {
		t.Errorf("a base-only step's requests = %q", got)
	}
	if !math.IsNaN(cs[1].moved) || cs[2].Name != "old" || cs[0].Name != "both" {
		t.Errorf("steps that cannot be compared are not last: %+v", cs)
	}
	if got := figureCell(cs[0].Errors, "%", false); got != "0.00 → 50.00 %, +50.00 pp, noise unknown" {
		t.Errorf("error cell = %q", got)
	}
	if c := (sidePair{Base: 1e6, Head: 0.001}).change(); c < -100 || c > -99.99 {
		t.Errorf("a thousand-fold fall is %v %%, want just above −100 %%", c)
	}
	if c := (sidePair{Base: 0, Head: 3}).change(); !math.IsNaN(c) {
		t.Errorf("a change from 0 is %v, want none", c)
	}
}

// Bounds of two blocks a side, for all of a table's changes together, can
// span factors of thousands: beyond a factor of ten they say only that.
func TestStepBoundsBeyondTenfoldAreClipped(t *testing.T) {
	t.Parallel()
	p := newSidePair(200, 400, []float64{100, 300}, []float64{500, 300}, false, 12)
	if got := changeText(p, true); got != "+100.0 % (<\u00a0−90 … >\u00a0+900), within noise" {
		t.Errorf("change of two noisy blocks = %q", got)
	}
}
