#!/usr/bin/env bash
# OTLP receiving speed, side by side (whole processes, one run each): the
# same OTLP/HTTP protobuf requests (realistic agent spans, about 1 KB of
# attributes each, 100 spans per request, one trace each with its root span
# last) from the same client (tools/otelcol-lf/otlpload) to
#   1. lf serve, live scores and AgentLeak scans of the finished traces,
#   2. lf serve with otlp.scan: false (spans only feed live scores),
#   3. an OpenTelemetry Collector built from its modules (otlp receiver to
#      the nop exporter, tools/otelcol-lf),
# printing spans/s and the server's CPU per 1,000 spans (user+sys from
# /proc/PID/stat); then lf agentleak scan of the same traces as lf's JSONL
# and as OTLP JSON (otlpload convert). The last line gives lf's rate as a
# ratio of the Collector's.
#
#   bash scripts/bench-otlp.sh
#
# LF_BENCH_SECONDS (10) per run; LF_BENCH_CONC (8) concurrent requests;
# LF_OTELCOL=PATH uses an already built Collector; LF_BENCH_PORT (18280).
# The span-to-verdict freshness and POST /verdict latency under a 10,000
# spans/s stream are not measured by this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${LF_BENCH_SECONDS:-10}
conc=${LF_BENCH_CONC:-8}
port=${LF_BENCH_PORT:-18280}
dir=$(mktemp -d /tmp/lf-bench-otlp.XXXX)
pid=""
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

go build -o "$dir/lf" "$root/cmd/lf"
go build -o "$dir/lfgen" "$root/cmd/lfgen"
(cd "$root/tools/otelcol-lf" && go build -o "$dir/otlpload" ./otlpload)
otelcol=${LF_OTELCOL:-}
if [ -z "$otelcol" ]; then
	(cd "$root/tools/otelcol-lf" && go build -o "$dir/otelcol-lf" .)
	otelcol=$dir/otelcol-lf
fi

export LF_BENCH_KEY=bench-acme-operator-0123456789
echo "name: bench-otlp" >"$dir/lf.yaml"
for scan in true false; do
	cat >"$dir/server-$scan.yaml" <<YAML
apiKeys:
  - {name: acme-gateway, tenant: acme, role: operator, keyEnv: LF_BENCH_KEY}
recalcInterval: 1h
otlp:
  scan: $scan
YAML
done
cat >"$dir/otelcol.yaml" <<YAML
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:$port
exporters:
  nop:
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [nop]
YAML

cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
rate=()
cpuk=()
bench() { # label command...
	local label=$1
	shift
	rm -f "$dir/lf.db"*
	(cd "$dir" && exec "$@") >"$dir/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H "Authorization: Bearer $LF_BENCH_KEY" -d '{}' "http://127.0.0.1:$port/v1/traces" || true)
		[ "$code" = 200 ] && break
		sleep 0.1
	done
	local c0 c1 out spans
	c0=$(cpu "$pid")
	echo "=== $label $(date -u +%H:%M:%S) load average $(cut -d' ' -f1-3 /proc/loadavg)"
	out=$("$dir/otlpload" send -url "http://127.0.0.1:$port/v1/traces" -header "Authorization=Bearer $LF_BENCH_KEY" -duration "${secs}s" -conc "$conc")
	c1=$(cpu "$pid")
	kill "$pid" && wait "$pid" 2>/dev/null || true
	pid=""
	echo "$out"
	spans=$(sed -n 's/.*: \([0-9]*\) spans\/s$/\1/p' <<<"$out")
	local total
	total=$(sed -n 's/.*; \([0-9]*\) spans in.*/\1/p' <<<"$out")
	rate+=("$spans")
	cpuk+=("$(awk -v c=$((c1 - c0)) -v n="$total" 'BEGIN { printf "%.1f", (n ? c * 10 / n * 1000 : 0) }')")
	echo "server CPU: $(((c1 - c0) * 10)) ms, ${cpuk[-1]} ms per 1,000 spans"
}
bench "lf serve (live scores + trace scans)" ./lf serve --config server-true.yaml --addr "127.0.0.1:$port"
bench "lf serve, otlp.scan: false (live scores only)" ./lf serve --config server-false.yaml --addr "127.0.0.1:$port"
bench "Collector (otlp -> nop)" "$otelcol" --config otelcol.yaml

echo "=== lf agentleak scan: the same traces as lf's JSONL and as OTLP JSON"
(cd "$root" && "$dir/lfgen" agentleak -o "$dir/traces.jsonl" -repeat 300 >/dev/null)
"$dir/otlpload" convert "$dir/traces.jsonl" "$dir/spans.otlp.jsonl"
scan() { # file -> seconds (best of 3)
	local best=999999 s e
	for _ in 1 2 3; do
		s=$(date +%s%N)
		"$dir/lf" agentleak scan --no-record -q -o jsonl --workers 1 "$1" >/dev/null || true
		e=$(date +%s%N)
		best=$(((e - s) / 1000000 < best ? (e - s) / 1000000 : best))
	done
	echo "$best"
}
tj=$(scan "$dir/traces.jsonl")
to=$(scan "$dir/spans.otlp.jsonl")
n=$(wc -l <"$dir/traces.jsonl")
echo "$n traces: JSONL $tj ms ($(du -h "$dir/traces.jsonl" | cut -f1)), OTLP JSON $to ms ($(du -h "$dir/spans.otlp.jsonl" | cut -f1)): OTLP at $(awk -v a="$tj" -v b="$to" 'BEGIN { printf "%.2f", a / b }')x the JSONL speed"

echo "=== summary"
printf 'lf serve: %s spans/s (%s ms CPU per 1,000 spans); without scans: %s spans/s (%s ms); Collector: %s spans/s (%s ms)\n' \
	"${rate[0]}" "${cpuk[0]}" "${rate[1]}" "${cpuk[1]}" "${rate[2]}" "${cpuk[2]}"
printf 'scanning finished traces costs %s%% more CPU per span than receiving without scanning\n' \
	"$(awk -v a="${cpuk[0]}" -v b="${cpuk[1]}" 'BEGIN { printf "%.0f", (b > 0 ? (a / b - 1) * 100 : 0) }')"
printf 'OTLP: lf %s spans/s, Collector %s spans/s: %sx the Collector\n' "${rate[0]}" "${rate[2]}" \
	"$(awk -v a="${rate[0]}" -v b="${rate[2]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
