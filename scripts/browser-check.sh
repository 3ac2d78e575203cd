#!/usr/bin/env bash
# browser-check.sh renders the post-mortem of the sample transcripts in
# headless Chromium, saves a screenshot, and fails if the page logged any
# console message: a script error, or a style or script the page's
# Content-Security-Policy refused.
#
#   scripts/browser-check.sh [PNG]      (default docs/report.png)
#
# Chromium is Debian's package; the script installs it when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
png=${1:-docs/report.png}

if ! command -v chromium >/dev/null; then
	echo "browser-check: installing chromium" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	$sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RETRACE_REDACT_KEY=browser-check go run ./cmd/retrace report -f html -o "$tmp/report.html" testdata/seeds

# --enable-logging=stderr writes each console message as a CONSOLE line.
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
	--window-size=1280,2600 --hide-scrollbars --screenshot="$tmp/report.png" \
	"file://$tmp/report.html" 2>"$tmp/chromium.log" >/dev/null || {
	cat "$tmp/chromium.log" >&2
	echo "browser-check: chromium failed" >&2
	exit 1
}
if grep -E ':CONSOLE|Refused to|Uncaught' "$tmp/chromium.log" >&2; then
	echo "browser-check: the page logged the messages above" >&2
	exit 1
fi
if [ ! -s "$tmp/report.png" ]; then
	echo "browser-check: no screenshot" >&2
	exit 1
fi
mkdir -p "$(dirname "$png")"
cp "$tmp/report.png" "$png"
echo "browser-check: ok, screenshot in $png"
