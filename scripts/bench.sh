#!/usr/bin/env bash
# bench.sh measures retrace's commands on real and generated corpora: wall
# time, CPU time, throughput and peak resident memory, and, in the same run,
# the time `wc -l` takes to read the same bytes.
#
# Usage: scripts/bench.sh [CORPUS...]
#
# CORPUS is one of real-claude real-mixed real-claude-3x real-claude-5GB
# real-claude-10k claude-100MB claude-250MB claude-500MB claude-1GB
# mixed-500MB single-2GB (the default: real-claude, real-mixed, claude-1GB,
# mixed-500MB and single-2GB). The real corpora are the transcripts of
# ../shared/corpus copied many times, written by ../shared/perf/realcorpus.sh
# (they are left out when ../shared is not there): real-claude-3x and
# real-claude-5GB hold real-claude 3 and 7 times over, as hard links;
# real-claude-10k is real-claude cut at record boundaries into about 10 000
# files of at most 80 kB. The others are written by tools/gencorpus. Each is written into
# $BENCH_DIR (default /tmp/retrace-bench) once and kept; delete the folder
# to draw them again. $RUNS (default 3) runs are made of each command, after
# one that warms the page cache, and the fastest is reported with the
# slowest. $RETRACE names a retrace binary to measure instead of one built
# from this tree. $BENCH_CMDS lists the commands to run, separated by
# semicolons (default: every command a user runs, in each form that reads
# differently: the summary table and JSON, errors and pairs as tables and
# JSON Lines, the bench table, report -f html); $BENCH_CMD, one command,
# is kept for older callers.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/retrace-bench}
RUNS=${RUNS:-3}
DEFAULT_CMDS="summary --format json;summary;errors;errors --format jsonl;pairs;pairs --format jsonl;bench;report -f html"
IFS=';' read -r -a BENCH_CMDS <<<"${BENCH_CMD:-${BENCH_CMDS:-$DEFAULT_CMDS}}"
mkdir -p "$BENCH_DIR"
SHARED=$(cd .. && pwd)/shared

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
	real-claude | real-mixed)
		if [ ! -x "$SHARED/perf/realcorpus.sh" ]; then
			echo "bench.sh: $name needs $SHARED/perf/realcorpus.sh" >&2
			return 1
		fi
		"$SHARED/perf/realcorpus.sh" "${name#real-}" "$dir" >&2
		echo "$dir"
		return
		;;
	real-claude-3x | real-claude-5GB | real-claude-10k)
		local src n i
		src=$(corpus real-claude) || return 1
		if [ ! -e "$dir.done" ]; then
			rm -rf "$dir"
			case $name in
			real-claude-3x) n=3 ;;
			real-claude-5GB) n=7 ;;
			esac
			if [ "$name" = real-claude-10k ]; then
				mkdir -p "$dir"
				for f in "$src"/*.jsonl; do
					split -C 80k -d -a 3 --additional-suffix=.jsonl "$f" "$dir/$(basename "$f" .jsonl)-"
				done
			else
				for i in $(seq "$n"); do
					mkdir -p "$dir/$i"
					ln "$src"/*.jsonl "$dir/$i/"
				done
			fi
			touch "$dir.done"
		fi
		echo "$dir"
		return
		;;
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
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); best of $RUNS runs after a warm-up; retrace: $RETRACE"
printf '%-13s %-22s %7s %6s %8s %8s %7s %9s %9s %7s %6s %7s\n' corpus command MB files wall_s cpu_s MB/s MB/cpu-s maxRSS_MB wc_s ratio worst_s
corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then
	corpora=(claude-1GB mixed-500MB single-2GB)
	if [ -x "$SHARED/perf/realcorpus.sh" ]; then
		corpora=(real-claude real-mixed "${corpora[@]}")
	fi
fi
for name in "${corpora[@]}"; do
	dir=$(corpus "$name")
	bytes=$(find "$dir" -type f -not -name '.*' -printf '%s\n' | awk '{ s += $1 } END { print s }')
	files=$(find "$dir" -type f -not -name '.*' | wc -l)
	# Warm the page cache, so that both commands read from memory.
	wcall "$dir" >/dev/null
	read -r wcwall _ _ _ _ <<<"$(best bash -c 'wcall "$1"' _ "$dir")"
	for cmd in "${BENCH_CMDS[@]}"; do
		read -r -a args <<<"$cmd"
		"$RETRACE" "${args[@]}" -q "$dir" >/dev/null 2>&1 || true
		read -r wall user sys rss worst <<<"$(best "$RETRACE" "${args[@]}" -q "$dir")"
		awk -v n="$name" -v c="$cmd" -v b="$bytes" -v f="$files" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v wc="$wcwall" -v worst="$worst" 'BEGIN {
			mb = b / 1e6; cpu = u + s
			printf "%-13s %-22s %7.0f %6d %8.2f %8.2f %7.0f %9.0f %9.0f %7.2f %6.1f %7.2f\n", n, c, mb, f, w, cpu, mb / w, mb / cpu, r / 1024, wc, w / (wc > 0 ? wc : 0.01), worst
		}'
	done
done
