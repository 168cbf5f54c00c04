#!/usr/bin/env bash
# Ingest benchmark (issue 14): `lf agents ingest` of the lfgen agent events
# (1 million by default, about 259 MB of JSONL) into a new SQLite store, on
# one core (GOMAXPROCS=1, taskset), against PostgreSQL's COPY of the same
# events as CSV into an unindexed table with one typed column per field, in
# the same run. Best of LF_BENCH_ROUNDS (3) runs each; the JSON-to-CSV
# conversion is not timed (lfgen writes the CSV from the same seed).
#
#   task bench:ingest            # or: bash scripts/bench-ingest.sh
#   LF_BENCH_LF=/tmp/lf-old bash scripts/bench-ingest.sh   # time another lf binary
#
# PostgreSQL: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (lf), PGPASSWORD (lf);
# the benchmark creates and drops its own database.
set -euo pipefail

events=${LF_BENCH_EVENTS:-1000000}
rounds=${LF_BENCH_ROUNDS:-3}
cpu=${LF_BENCH_CPU:-0}
dir=${LF_BENCH_DIR:-/tmp/lf-bench-ingest}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-lf} PGPASSWORD=${PGPASSWORD:-lf}

mkdir -p "$dir"
lf=${LF_BENCH_LF:-$dir/lf}
[ -n "${LF_BENCH_LF:-}" ] || go build -o "$lf" ./cmd/lf
jsonl=$dir/events-$events.jsonl
csv=$dir/events-$events.csv
[ -s "$jsonl" ] || go run ./cmd/lfgen agent-events -events "$events" > "$jsonl"
[ -s "$csv" ] || go run ./cmd/lfgen agent-events -events "$events" -format csv > "$csv"

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
db=lf_bench_ingest_$$
psql -q -d postgres -c "CREATE DATABASE $db"
trap 'psql -q -d postgres -c "DROP DATABASE IF EXISTS $db"' EXIT

best() { sort -n | head -1; }
export rounds
lf_times=() pg_times=()
for i in $(seq "$rounds"); do
	rm -f "$dir"/lf.db*
	# %e wall seconds, %U+%S CPU seconds, %M peak RSS in KiB
	t=$( { GOMAXPROCS=1 taskset -c "$cpu" /usr/bin/time -f "%e %U %S %M" "$lf" --store "$dir/lf.db" agents ingest -q "$jsonl" >/dev/null; } 2>&1 | tail -1)
	echo "lf agents ingest, run $i: $(awk '{printf "%.2f s wall, %.2f s CPU, %d MB peak RSS", $1, $2+$3, $4/1024}' <<<"$t")"
	lf_times+=("$t")

	psql -q -d "$db" -c "DROP TABLE IF EXISTS events" -c "CREATE TABLE events (
		ts timestamptz, tenant_id text, agent_id text, agent_name text, session_id text, method text, tool text,
		resource text, high_impact boolean, decision text, rule text, injection_score double precision, request_id text)"
	# The server process that runs the COPY is pinned to the same core as lf
	# when we may (the two cores of a VM need not be equal: pinning only one
	# side compares cores, not programs); its CPU time (utime + stime in
	# clock ticks, from /proc) is read before and after.
	out=$(taskset -c "$cpu" psql -q -At -d "$db" <<-SQL
		SELECT pg_backend_pid() AS pid \\gset
		\\setenv PGPID :pid
		\\! taskset -p -c $cpu \$PGPID >/dev/null 2>&1 || true
		\\! awk '{print \$14 + \$15}' /proc/\$PGPID/stat
		\\! date +%s.%N
		\\copy events FROM '$csv' WITH (FORMAT csv)
		\\! date +%s.%N
		\\! awk '{print \$14 + \$15}' /proc/\$PGPID/stat
		SQL
	)
	read -r t0 s0 s1 t1 <<<"$(echo $out)"
	hz=$(getconf CLK_TCK)
	pg=$(awk -v a="$s0" -v b="$s1" -v c0="$t0" -v c1="$t1" -v hz="$hz" 'BEGIN{printf "%.2f %.2f", b-a, (c1-c0)/hz}')
	echo "PostgreSQL COPY, run $i: $(awk '{printf "%.2f s wall, %.2f s CPU of the server process", $1, $2}' <<<"$pg") ($(psql -At -d "$db" -c "SELECT count(*) FROM events") rows)"
	pg_times+=("$pg")
done
lf_best=$(printf '%s\n' "${lf_times[@]}" | best)
pg_best=$(printf '%s\n' "${pg_times[@]}" | best)
lf_cpu=$(printf '%s\n' "${lf_times[@]}" | awk '{print $2 + $3}' | best)
pg_cpu=$(printf '%s\n' "${pg_times[@]}" | awk '{print $2}' | best)
awk -v l="$lf_best" -v p="$pg_best" -v lc="$lf_cpu" -v pc="$pg_cpu" -v n="$events" 'BEGIN{
	split(l, f, " "); split(p, g, " ")
	printf "best of %s runs:\n", ENVIRON["rounds"]
	printf "  lf agents ingest  %.2f s wall (%.0f events/s), %.2f s CPU, %d MB peak RSS\n", f[1], n/f[1], lc, f[4]/1024
	printf "  PostgreSQL COPY   %.2f s wall, %.2f s CPU (server process)\n", g[1], pc
	printf "  lf / COPY: %.2fx the wall time, %.2fx the CPU time\n", f[1]/g[1], lc/pc
}'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
