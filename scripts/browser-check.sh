#!/usr/bin/env bash
# browser-check.sh renders the post-mortem of the sample transcripts, and
# of ../shared/corpus when it is there, and opens each in headless Chromium
# at 1400 and 390 pixels wide (tools/browsercheck). It fails when a page
#   - logs any console message: a script error, or a style or script its
#     Content-Security-Policy refused;
#   - has an element wider than the window that no scrolling box holds,
#     with every chain's story opened;
#   - links to an anchor of its own that no id resolves, or gives an id
#     twice.
# It saves two screenshots of the samples' page: its top at 1400 pixels,
# and the first chain's story, opened by its link, at 390.
#
#   scripts/browser-check.sh [DIR]    (screenshots in DIR, default docs/)
#
# It needs Debian's chromium at /usr/bin/chromium (or $CHROMIUM), and
# skips the check, saying so, when it is missing: it installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs}
chromium=${CHROMIUM:-/usr/bin/chromium}

if [ ! -x "$chromium" ]; then
	echo "browser-check: skipped: $chromium is not installed (apt-get install chromium)" >&2
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/retrace" ./cmd/retrace
go build -o "$tmp/browsercheck" ./tools/browsercheck

pages=()
for in in testdata/seeds ../shared/corpus; do
	[ -d "$in" ] || continue
	page="$tmp/$(basename "$in").html"
	RETRACE_REDACT_KEY=browser-check "$tmp/retrace" report -f html -o "$page" "$in" 2>/dev/null
	pages+=("$page")
done
"$tmp/browsercheck" -chromium "$chromium" -widths 1400,390 "${pages[@]}"

# The screenshots: retrace writes the same page from the same transcripts,
# so they change only when the page does.
mkdir -p "$tmp/shots" "$out"
first=$(grep -o -m1 '<details class="chain" id="[a-z0-9-]*"' "$tmp/seeds.html" | sed 's/.*id="//; s/"$//')
"$tmp/browsercheck" -chromium "$chromium" -widths 1400 -height 1100 -shots "$tmp/shots" "$tmp/seeds.html" >/dev/null
"$tmp/browsercheck" -chromium "$chromium" -widths 390 -height 1000 -shots "$tmp/shots" "$tmp/seeds.html#$first" >/dev/null
cp "$tmp/shots/seeds-1400.png" "$out/report-1400.png"
cp "$tmp/shots/seeds-390.png" "$out/report-390.png"
echo "browser-check: ok; screenshots in $out/report-1400.png and $out/report-390.png"
