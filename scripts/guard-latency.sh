#!/usr/bin/env bash
# guard-latency.sh measures `retrace guard` as an agent runs it: one process
# per tool call, a PreToolUse payload on standard input, about a Claude Code
# session of 50 MB, with a store of 10 000 lessons. It prints the median and
# the 99th percentile of the calls' wall times:
#
#   floor  a payload the guard rejects at once: the start of the process
#   cold   no state for the transcript: it is read whole
#   warm   before each call, the records of one more call of the session
#          are appended to the transcript (about 8 KB), as an agent's
#          calls come one after the other
#
# Usage: scripts/guard-latency.sh [COLD_CALLS [WARM_CALLS]] (30 and 200 by
# default). Everything is made in a temporary folder and removed after.
set -euo pipefail
cd "$(dirname "$0")/.."
cold_calls=${1:-30}
warm_calls=${2:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr), $(go version | cut -d' ' -f3)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

go build -o "$tmp/retrace" ./cmd/retrace
# 52 MB: the first 50 MB are the transcript, the rest is appended call by
# call.
go run ./tools/gencorpus -format claude-code -single -size 52MB "$tmp/gen" >/dev/null 2>&1
gen=$(find "$tmp/gen" -type f -name '*.jsonl')
transcript=$tmp/session.jsonl
head -c 50000000 "$gen" | awk '{ lines[NR] = $0 } END { for (i = 1; i < NR; i++) print lines[i] }' >"$transcript"
mkdir "$tmp/calls"
tail -c +"$(($(stat -c %s "$transcript") + 1))" "$gen" |
	awk -v dir="$tmp/calls" '/"type":"tool_use"/ { n++ } { print > sprintf("%s/%05d", dir, n) }'

store=$tmp/store/lessons.jsonl
mkdir -p "$tmp/store"
awk 'BEGIN {
	for (i = 0; i < 10000; i++) {
		target = sprintf("tool_%03d.py", int(i / 10))
		if (i % 100 == 0) target = "train.py"
		printf "{\"target\":\"%s\",\"kind\":\"flag\",\"wrong\":\"--wrong-%d\",\"right\":\"--right-%d\",\"session\":\"/home/dev/.claude/projects/p/%05d.jsonl\",\"failed\":%d,\"fixed\":%d,\"with\":\"with --right-%d 5\",\"valid_flags\":[\"--help\",\"--right-%d\",\"--epochs\",\"--out\"]}\n", target, i, i, int(i / 40), i % 500, i % 500 + 2, i, i
	}
}' >"$store"

payload=$tmp/payload.json
printf '{"session_id":"b2cf3985","transcript_path":"%s","cwd":"/home/dev/ledger-api","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"python train.py --epochs 3 --out /tmp/run"},"tool_use_id":"toolu_01Bench"}\n' "$transcript" >"$payload"

# call runs the guard once on the file $1 and prints its wall time in µs.
call() {
	local t0 t1
	t0=$(date +%s%N)
	"$tmp/retrace" guard --quiet --store "$store" <"$1" >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

# report prints the median and 99th percentile of the times in $2.
report() {
	sort -n "$2" | awk -v what="$1" '{ t[NR] = $1 } END {
		p50 = t[int(NR * 0.50) + (NR * 0.50 > int(NR * 0.50))]
		p99 = t[int(NR * 0.99) + (NR * 0.99 > int(NR * 0.99))]
		printf "%-6s %4d calls  p50 %7.1f ms  p99 %7.1f ms\n", what, NR, p50 / 1000, p99 / 1000
	}'
}

echo '{}' >"$tmp/empty.json"
for _ in $(seq "$cold_calls"); do call "$tmp/empty.json"; done >"$tmp/floor"
report floor "$tmp/floor"

for _ in $(seq "$cold_calls"); do
	rm -rf "$tmp/store/sessions"
	call "$payload"
done >"$tmp/cold"
report cold "$tmp/cold"

call "$payload" >/dev/null
set -- "$tmp"/calls/*
for _ in $(seq "$warm_calls"); do
	cat "$1" >>"$transcript"
	shift
	[ $# -gt 0 ] || set -- "$tmp"/calls/*
	call "$payload"
done >"$tmp/warm"
report warm "$tmp/warm"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
