#!/usr/bin/env bash
# duckdb-check.sh checks the README's section "Past one machine" against
# DuckDB: it runs the section's sh lines as they are written, the folder of
# transcripts and the host name aside, then every query of its sql blocks
# over the files they wrote, and fails unless each query runs and returns at
# least one row. The queries are read from README.md, so editing them there
# is what gets checked.
#
#   scripts/duckdb-check.sh
#
# The lines under "# on each machine" run once per machine, here a folder of
# transcripts standing for one: testdata/seeds as host "seeds", and, when
# ../shared/corpus is there, a second set of files in which the seeds' and
# the corpus's shards (host "corpus") are merged. The lines under
# "# anywhere" then run over each set, and the queries run in each.
#
# DuckDB is @duckdb/node-api from npm, installed into a temporary folder; the
# check is skipped (status 0) when node or npm is missing. DuckDB may not
# install extensions: the queries use only those built in (json, icu).
set -euo pipefail
cd "$(dirname "$0")/.."

# DUCKDB_NODE_API is the version of @duckdb/node-api; it runs on Node 20.
DUCKDB_NODE_API=1.5.6-r.1

for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		echo "duckdb-check: skipped: $tool is not installed (the check runs the README's DuckDB queries through Node's @duckdb/node-api)"
		exit 0
	fi
done

fail() {
	echo "duckdb-check: $*" >&2
	exit 1
}

start=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# section prints the README's section "Past one machine"; block LANG prints
# the contents of its code blocks fenced as LANG.
section() {
	awk '/^## Past one machine$/ { on = 1; next } on && /^## / { exit } on' README.md
}
block() {
	section | awk -v fence="\`\`\`$1" '$0 == fence { on = 1; next } on && /^```/ { on = 0; next } on'
}
# lines MARK prints the sh lines under the comment MARK, up to the next comment.
lines() {
	block sh | awk -v mark="# $1" '$0 == mark { on = 1; next } /^#/ { on = 0 } on && NF'
}

each=$(lines "on each machine")
anywhere=$(lines "anywhere")
block sql >"$tmp/queries.sql"
[ -n "$each" ] || fail 'README.md: no lines under "# on each machine" in the sh block of "Past one machine"'
[ -n "$anywhere" ] || fail 'README.md: no lines under "# anywhere" in the sh block of "Past one machine"'
[ -s "$tmp/queries.sql" ] || fail 'README.md: no sql block in "Past one machine"'
grep -q '~/.claude/projects' <<<"$each" ||
	fail 'README.md: the lines "on each machine" no longer read ~/.claude/projects, which the check replaces with its transcripts'

echo "duckdb-check: building retrace"
mkdir -p "$tmp/bin"
go build -o "$tmp/bin/retrace" ./cmd/retrace

echo "duckdb-check: installing @duckdb/node-api@$DUCKDB_NODE_API"
mkdir -p "$tmp/node"
printf '{"private": true, "dependencies": {"@duckdb/node-api": "%s"}}\n' "$DUCKDB_NODE_API" >"$tmp/node/package.json"
npm install --prefix "$tmp/node" --no-audit --no-fund --ignore-scripts --loglevel=error >"$tmp/npm.log" 2>&1 || {
	cat "$tmp/npm.log" >&2
	fail "npm could not install @duckdb/node-api@$DUCKDB_NODE_API"
}

# run DIR MACHINE TRANSCRIPTS SCRIPT runs the README's lines SCRIPT in DIR,
# with retrace on the PATH, ~/.claude/projects standing for TRANSCRIPTS and
# $(hostname) for MACHINE. Each line must succeed; status 1 (some input could
# not be read, the rest reported) is allowed on the transcripts of others.
run() {
	local dir=$1 machine=$2 transcripts=$3 script=$4 line status
	mkdir -p "$dir"
	while IFS= read -r line; do
		line=${line//'~/.claude/projects'/'"$transcripts"'}
		status=0
		(
			cd "$dir"
			hostname() { echo "$machine"; }
			export PATH="$tmp/bin:$PATH" transcripts machine
			export -f hostname
			bash -euo pipefail -c "$line" >>"$tmp/stdout.log" 2>"$tmp/stderr.log"
		) || status=$?
		if [ "$status" -ne 0 ] && ! { [ "$status" -eq 1 ] && [ "$machine" != seeds ]; }; then
			cat "$tmp/stderr.log" >&2
			fail "$line: exit status $status (machine $machine, in $dir)"
		fi
	done <<<"$script"
}

sets=("$tmp/seeds")
run "$tmp/seeds" seeds "$PWD/testdata/seeds" "$each"
run "$tmp/seeds" seeds "$PWD/testdata/seeds" "$anywhere"
if [ -d ../shared/corpus ]; then
	sets+=("$tmp/corpus")
	run "$tmp/corpus" seeds "$PWD/testdata/seeds" "$each"
	run "$tmp/corpus" corpus "$(cd ../shared/corpus && pwd)" "$each"
	run "$tmp/corpus" corpus "$(cd ../shared/corpus && pwd)" "$anywhere"
else
	echo "duckdb-check: ../shared/corpus is absent: queries run on the seeds only"
fi
for dir in "${sets[@]}"; do
	echo "duckdb-check: $(basename "$dir"): $(cd "$dir" && wc -l -- *.jsonl | awk '$2 != "total" { printf "%s%s %d", sep, $2, $1; sep = ", " }')"
done

# query.mjs runs each statement of a SQL file in each folder named and fails
# unless every one runs and returns a row.
cat >"$tmp/node/query.mjs" <<'EOF'
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [sqlFile, ...dirs] = process.argv.slice(2);
const queries = readFileSync(sqlFile, 'utf8')
  .split(/;[ \t]*$/m)
  .map((s) => s.trim())
  .filter((s) => s.replace(/^--.*$/gm, '').trim() !== '');
if (queries.length === 0) {
  console.error('duckdb-check: README.md: no query in the sql blocks of "Past one machine"');
  process.exit(1);
}

// title names a query by its leading comment, or else its first line.
function title(sql) {
  const comment = sql.match(/^--\s*(.*)$/m);
  return comment ? comment[1] : sql.split('\n')[0];
}

let failed = 0;
for (const dir of dirs) {
  process.chdir(dir);
  const db = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const conn = await db.connect();
  for (const sql of queries) {
    try {
      const rows = (await conn.runAndReadAll(sql)).getRowObjectsJson();
      if (rows.length === 0) throw new Error('the query returned no row');
      let first = JSON.stringify(rows[0]);
      if (first.length > 100) first = first.slice(0, 99) + '…';
      console.log(`ok   ${basename(dir)}: ${title(sql)}: ${rows.length} rows, first ${first}`);
    } catch (err) {
      failed++;
      console.log(`FAIL ${basename(dir)}: ${title(sql)}\n${sql}\n${err.message}\n`);
    }
  }
  conn.closeSync();
  db.closeSync();
}
if (failed > 0) {
  console.error(`duckdb-check: ${failed} of ${queries.length * dirs.length} queries failed`);
  process.exit(1);
}
console.log(`duckdb-check: ok, ${queries.length} queries returned rows in each of ${dirs.length} sets of files`);
EOF
node "$tmp/node/query.mjs" "$tmp/queries.sql" "${sets[@]}"
echo "duckdb-check: done in $((SECONDS - start))s"
