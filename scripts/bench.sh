#!/usr/bin/env bash
# bench.sh measures a retrace command, by default `retrace summary --format
# json`, on generated corpora:
# wall time, CPU time, throughput and peak resident memory, and, in the
# same run, the time `wc -l` takes to read the same bytes.
#
# Usage: scripts/bench.sh [CORPUS...]
#
# CORPUS is one of claude-100MB claude-250MB claude-500MB claude-1GB
# mixed-500MB single-2GB (the default: all of them). The corpora are written
# by tools/gencorpus into $BENCH_DIR (default /tmp/retrace-bench) once and
# kept; delete the folder to draw them again. $RUNS (default 3) runs are
# made of each command, after one that warms the page cache, and the
# fastest is reported with the spread of the others. $RETRACE names a
# retrace binary to measure instead of one built from this tree, and
# $BENCH_CMD the command and flags to run (default "summary --format json";
# for example "pairs --format jsonl", which reads the benchmark numbers that
# the summary leaves out).
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/retrace-bench}
RUNS=${RUNS:-3}
read -r -a BENCH_CMD <<<"${BENCH_CMD:-summary --format json}"
mkdir -p "$BENCH_DIR"

if [ -z "${RETRACE:-}" ]; then
	RETRACE=$BENCH_DIR/retrace
	go build -o "$RETRACE" ./cmd/retrace
fi
GENCORPUS=$BENCH_DIR/gencorpus
go build -o "$GENCORPUS" ./tools/gencorpus

# corpus NAME prints the folder of the named corpus, writing it first if
# it is not there.
corpus() {
	local name=$1 dir=$BENCH_DIR/$1 args
	case $name in
	claude-100MB) args="-format claude-code -size 100MB" ;;
	claude-250MB) args="-format claude-code -size 250MB" ;;
	claude-500MB) args="-format claude-code -size 500MB" ;;
	claude-1GB) args="-format claude-code -size 1GB" ;;
	mixed-500MB) args="-format mixed -size 500MB" ;;
	single-2GB) args="-format claude-code -size 2GB -single" ;;
	*)
		echo "bench.sh: unknown corpus $name" >&2
		exit 2
		;;
	esac
	if [ ! -e "$dir.done" ]; then
		rm -rf "$dir"
		# shellcheck disable=SC2086
		"$GENCORPUS" $args "$dir" >&2
		touch "$dir.done"
	fi
	echo "$dir"
}

# measure CMD... runs CMD under /usr/bin/time -v and prints
# "wall user sys maxrss_kB".
measure() {
	local out
	out=$(mktemp)
	/usr/bin/time -v -o "$out" "$@" >/dev/null 2>&1 || {
		echo "bench.sh: failed: $*" >&2
		cat "$out" >&2
		rm -f "$out"
		exit 1
	}
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/User time/ { user = $2 }
		/System time/ { sys = $2 }
		/Maximum resident set size/ { rss = $2 }
		END { printf "%.2f %.2f %.2f %d\n", wall, user, sys, rss }' "$out"
	rm -f "$out"
}

# best CMD... runs CMD $RUNS times and prints the run with the least wall
# time, then the slowest wall time seen.
best() {
	local line bestline="" worst=0
	for _ in $(seq "$RUNS"); do
		line=$(measure "$@")
		if [ -z "$bestline" ] || awk -v a="$line" -v b="$bestline" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; then
			bestline=$line
		fi
		worst=$(awk -v a="$line" -v w="$worst" 'BEGIN { split(a, x, " "); print (x[1] > w ? x[1] : w) }')
	done
	echo "$bestline $worst"
}

wcall() { find "$1" -type f -print0 | xargs -0 wc -l | tail -1; }
export -f wcall

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(go version | cut -d' ' -f3)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); best of $RUNS runs after a warm-up; retrace ${BENCH_CMD[*]}: $RETRACE"
printf '%-13s %8s %6s %8s %8s %8s %9s %9s %8s %8s %6s\n' corpus MB files wall_s cpu_s MB/s MB/cpu-s maxRSS_MB wc_s ratio worst_s
corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then
	corpora=(claude-100MB claude-250MB claude-500MB claude-1GB mixed-500MB single-2GB)
fi
for name in "${corpora[@]}"; do
	dir=$(corpus "$name")
	bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	files=$(find "$dir" -type f | wc -l)
	# Warm the page cache, so that both commands read from memory.
	wcall "$dir" >/dev/null
	"$RETRACE" "${BENCH_CMD[@]}" "$dir" >/dev/null 2>&1 || true
	read -r wall user sys rss worst <<<"$(best "$RETRACE" "${BENCH_CMD[@]}" "$dir")"
	read -r wcwall _ _ _ _ <<<"$(best bash -c 'wcall "$1"' _ "$dir")"
	awk -v n="$name" -v b="$bytes" -v f="$files" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v wc="$wcwall" -v worst="$worst" 'BEGIN {
		mb = b / 1e6; cpu = u + s
		printf "%-13s %8.0f %6d %8.2f %8.2f %8.0f %9.0f %9.0f %8.2f %8.1f %6.2f\n", n, mb, f, w, cpu, mb / w, mb / cpu, r / 1024, wc, w / (wc > 0 ? wc : 0.01), worst
	}'
done
