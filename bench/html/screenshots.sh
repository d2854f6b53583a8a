#!/usr/bin/env bash
# Look at the reports as a reviewer would.
#
# Builds tailgate and runs the embedded demo service three ways, each writing
# the HTML report (--html) and the PR comment's Markdown (--markdown):
#   check       a check against a baseline recorded just before (a pass, unless
#               this machine's noise says otherwise)
#   regression  a check of the service made 30 % slower
#   ab          an A/B job, clean base against a head 20 % slower
#   aa          an A/B job of one build against itself (a clean PR)
# Then it renders each Markdown comment as GitHub would show it
# (bench/html/mdview: goldmark with GitHub's extensions; the ```mermaid blocks
# drawn by Mermaid when MERMAID_JS names a local mermaid.min.js, as GitHub draws
# them) and screenshots every page in headless Chromium at 1280 px and at a
# phone's 390 px, in the light and the dark theme.
#
#   bench/html/screenshots.sh                      # about 4 minutes
#   MERMAID_JS=$PWD/node_modules/mermaid/dist/mermaid.min.js bench/html/screenshots.sh
#
# Output in bench/out/html/: NAME.html, NAME.md, and NAME-{1280,390}[-dark].png
# for the HTML reports and NAME-comment-{1280,390}[-dark].png for the comments.
# With Mermaid, NAME-comment-mermaid.html is the page as Mermaid left it: a
# chart it could not parse, or did not draw, fails the script.
#
# Load goes only to the demo service on 127.0.0.1; every load is bounded (runs ×
# duration). Chromium runs with its background networking off, and the pages
# fetch nothing: the HTML report's Content-Security-Policy forbids it.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out/html}
chromium=${CHROMIUM:-/usr/bin/chromium}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building tailgate and mdview" >&2
(cd "$root" && go build -o "$work/tailgate" ./cmd/tailgate && go build -o "$work/mdview" ./bench/html/mdview)

bl=$work/demo-baseline.json
demo() { "$work/tailgate" demo --mode check --baseline "$bl" -q "$@"; }

# A verdict's exit code (0 pass, 1 regression) is not a failure here; 2 and 3 are.
judged() {
	local code=0
	"$@" >"$work/last.txt" 2>&1 || code=$?
	if [ "$code" -gt 1 ]; then
		cat "$work/last.txt" >&2
		echo "exit $code: $*" >&2
		exit "$code"
	fi
	grep -A1 -m1 '^tailgate: ' "$work/last.txt" >&2 || true
}

# The demo's own defaults: 5 runs of 1 s warm-up and 4 s measured.
echo "recording the demo baseline (5 runs)" >&2
demo >/dev/null
echo "check" >&2
judged demo --html "$out/check.html" --markdown "$out/check.md"
echo "check of a 30 % slowdown" >&2
judged demo --slowdown 30% --html "$out/regression.html" --markdown "$out/regression.md"
echo "A/B of a 20 % slowdown" >&2
judged "$work/tailgate" demo -q --slowdown 20% --html "$out/ab.html" --markdown "$out/ab.md"
echo "A/B of one build against itself" >&2
judged "$work/tailgate" demo -q --aa --html "$out/aa.html" --markdown "$out/aa.md"

# shot URL PNG WIDTH [chromium flags...]
shot() {
	local url=$1 png=$2 width=$3
	shift 3
	"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" \
		--hide-scrollbars --window-size="$width,4000" "$@" --screenshot="$png" "$url" >/dev/null 2>&1
	echo "  $png" >&2
}

mermaid=()
if [ -n "${MERMAID_JS:-}" ]; then
	mermaid=(-mermaid "$MERMAID_JS")
fi
for name in check regression ab aa; do
	echo "screenshots of $name" >&2
	for width in 1280 390; do
		shot "file://$out/$name.html" "$out/$name-$width.png" "$width"
		shot "file://$out/$name.html" "$out/$name-$width-dark.png" "$width" --force-dark-mode
	done
	"$work/mdview" "${mermaid[@]}" "$out/$name.md" >"$out/$name-comment.html"
	"$work/mdview" -dark "${mermaid[@]}" "$out/$name.md" >"$out/$name-comment-dark.html"
	js=(--virtual-time-budget=10000 --allow-file-access-from-files)
	for width in 1280 390; do
		shot "file://$out/$name-comment.html" "$out/$name-comment-$width.png" "$width" "${js[@]}"
		shot "file://$out/$name-comment-dark.html" "$out/$name-comment-$width-dark.png" "$width" "${js[@]}" --force-dark-mode
	done
	if [ ${#mermaid[@]} -gt 0 ]; then
		"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
			--disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" "${js[@]}" \
			--dump-dom "file://$out/$name-comment.html" 2>/dev/null >"$out/$name-comment-mermaid.html"
		want=$(grep -c '^```mermaid' "$out/$name.md" || true)
		drawn=$(grep -o '<pre class="mermaid" data-processed="true"><svg' "$out/$name-comment-mermaid.html" | wc -l)
		if grep -qi 'syntax error' "$out/$name-comment-mermaid.html" || [ "$drawn" -ne "$want" ]; then
			echo "Mermaid drew $drawn of the $want charts of $name.md (see $out/$name-comment-mermaid.html)" >&2
			exit 1
		fi
		echo "  Mermaid drew all $want charts of $name.md" >&2
	fi
done
ls -l "$out"/*.html | awk '{print "  " $5 " bytes  " $9}' >&2
