#!/usr/bin/env bash
# Verdict latency and live freshness benchmark: lf serve on a
# fresh copy of project/, the risk config of docs/performance.md "lf serve: POST /verdict", then
# lfgen loadgen at 5,000 verdicts/s for 20 s, alone and with 10,000 events/s
# of concurrent ingest and a freshness probe every 100 ms. Prints the load
# average before each run and the server's CPU (user+sys from
# /proc/PID/stat) per verdict.
#
#   bash scripts/bench-verdict.sh                     # this tree
#   bash scripts/bench-verdict.sh /tmp/lf-other ...   # also other lf binaries, interleaved
#   bash scripts/bench-verdict.sh 'GOGC=1000,GOMEMLIMIT=512MiB@'   # also this tree with other settings
#
# An argument ENV=VALUE[,ENV=VALUE...]@[BINARY] runs BINARY (this tree's when
# empty) with those variables in the server's environment, e.g. to compare GC
# policies (docs/serve.md, "GC policy") in the same run.
# LF_BENCH_ROUNDS (2) rounds; LF_BENCH_INGEST (10000) events/s in the loaded
# run (0: verdicts only); LF_BENCH_PORT (18080); LF_BENCH_STATS=1 also prints
# what the Go runtime of the server measured over the run (scheduler latency,
# GC pauses and cycles, bytes allocated: LF_SERVE_RUNTIME_STATS, docs/serve.md).
# GOGC, GOMEMLIMIT and GOMAXPROCS set for this script reach the server.
set -euo pipefail

rounds=${LF_BENCH_ROUNDS:-2}
ingest=${LF_BENCH_INGEST:-10000}
port=${LF_BENCH_PORT:-18080}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/lf-bench-verdict.XXXX)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/lf" "$root/cmd/lf"
go build -o "$dir/lfgen" "$root/cmd/lfgen"
bins=("$dir/lf" "$@")

export LF_KEY_ACME=bench-acme-0123456789abcdef LF_KEY_GLOBEX=bench-globex-0123456789abcdef
export LF_ADMIN_KEY=bench-admin-0123456789abcdef LF_WEBHOOK_SECRET=bench-secret-0123456789 LF_WEBHOOK_SECRET_GLOBEX=bench-secret-globex-0123456789
export LF_SMTP_USER=alerts LF_SMTP_PASSWORD=change-me

run() { # label [ENV=VALUE,...@]binary loadgen-args...
	local label=$1 bin=$2 envs=()
	shift 2
	if [[ $bin == *@* ]]; then
		IFS=, read -r -a envs <<<"${bin%%@*}"
		bin=${bin#*@}
		bin=${bin:-$dir/lf}
	fi
	local proj="$dir/project"
	rm -rf "$proj" && cp -r "$root/project" "$proj"
	(cd "$proj" && exec env LF_SERVE_RUNTIME_STATS="${LF_BENCH_STATS:-0}" "${envs[@]}" "$bin" serve --config "$root/examples/server/server.yaml" --addr "127.0.0.1:$port") >"$dir/serve.log" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
	curl -s -o /dev/null -H "Authorization: Bearer $LF_KEY_ACME" -X PUT \
		-d '{"enabled": true, "rateLimit": {"limit": 1000000, "windowSeconds": 60}}' "http://127.0.0.1:$port/tenants/acme/risk-config"
	local cpu0 cpu1
	cpu0=$(awk '{print $14+$15}' "/proc/$pid/stat")
	echo "=== $label (${envs[*]} $bin) $(date -u +%H:%M:%S) load average $(cut -d' ' -f1-3 /proc/loadavg): loadgen $*"
	"$dir/lfgen" loadgen -addr "127.0.0.1:$port" -key "$LF_KEY_ACME" -tenant acme "$@" || true
	cpu1=$(awk '{print $14+$15}' "/proc/$pid/stat")
	kill "$pid" && wait "$pid" 2>/dev/null || true
	if [ "${LF_BENCH_STATS:-0}" = 1 ]; then
		sed -n 's/.*lf serve: runtime over/server runtime over/p' "$dir/serve.log"
	fi
	# 22 s of load (2 s warm-up): 110,000 verdicts.
	awk -v c=$((cpu1 - cpu0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "server CPU %.2f s, %.1f us per verdict (ingest included)\n", c/hz, c/hz/110000*1e6 }'
}

for r in $(seq "$rounds"); do
	for bin in "${bins[@]}"; do
		run "verdicts only, round $r" "$bin" -rate 5000 -duration 20s
		if [ "$ingest" -gt 0 ]; then
			run "with ingest, round $r" "$bin" -rate 5000 -duration 20s -ingest-rate "$ingest" -ingest-batch 500 -probe 100ms
		fi
	done
done
