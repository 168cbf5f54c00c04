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
# /proc/PID/stat, counted until the server is idle again: lf scans finished
# traces in the background, so the spans/s it sustains is the spans over
# the sending time plus the time it took to finish their scans); then, while
# spans stream at 10,000/s to lf serve, the span-to-verdict freshness (a
# probe sends a tool span of a new agent every 100 ms and polls POST
# /verdict until it scores the agent) and POST /verdict latency (lfgen
# loadgen, 5,000 req/s), the Collector's request latency at the same stream
# beside; then lf agentleak scan of the same traces as lf's JSONL and as
# OTLP JSON (otlpload convert), at the default worker count and with
# --workers 1, the two files in turn (LF_BENCH_SCANS times, 7). The last
# line gives lf's rate as a ratio of the Collector's.
# The three receiving runs are made in rounds (each round: lf with scans,
# without, the Collector), and the summary takes each one's best round
# (the most spans/s, the least CPU per span): the machine is shared, and
# one run's figures move by tens of per cent.
#
#   bash scripts/bench-otlp.sh
#
# LF_BENCH_SECONDS (10) per run; LF_BENCH_ROUNDS (3); LF_BENCH_CONC (8)
# concurrent requests; LF_OTELCOL=PATH uses an already built Collector;
# LF_BENCH_PORT (18280).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${LF_BENCH_SECONDS:-10}
rounds=${LF_BENCH_ROUNDS:-3}
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
# Per benchmark (0: lf with scans, 1: without, 2: the Collector), each
# round's spans/s and CPU per 1,000 spans.
rates=("" "" "")
cpuks=("" "" "")
start() { # command...: starts a server on $port, waits until it answers
	rm -f "$dir/lf.db"*
	(cd "$dir" && exec "$@") >"$dir/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H "Authorization: Bearer $LF_BENCH_KEY" -d '{}' "http://127.0.0.1:$port/v1/traces" || true)
		[ "$code" = 200 ] && break
		sleep 0.1
	done
}
stop() {
	kill "$pid" && wait "$pid" 2>/dev/null || true
	pid=""
}
idle() { # waits until the server used at most 10 ms of CPU in 200 ms (at most 120 s); prints the seconds waited
	local a b t0 t1
	t0=$(date +%s%N)
	a=$(cpu "$pid")
	for _ in $(seq 600); do
		sleep 0.2
		b=$(cpu "$pid")
		[ $((b - a)) -le 1 ] && break
		a=$b
	done
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", (d > 200000000 ? d - 200000000 : 0) / 1e9 }'
}
bench() { # index label command...
	local ix=$1 label=$2
	shift 2
	start "$@"
	local c0 c1 out spans total el drain
	c0=$(cpu "$pid")
	echo "=== $label $(date -u +%H:%M:%S) load average $(cut -d' ' -f1-3 /proc/loadavg)"
	out=$("$dir/otlpload" send -url "http://127.0.0.1:$port/v1/traces" -header "Authorization=Bearer $LF_BENCH_KEY" -duration "${secs}s" -conc "$conc")
	drain=$(idle)
	c1=$(cpu "$pid")
	stop
	echo "$out"
	total=$(sed -n 's/.*; \([0-9]*\) spans in.*/\1/p' <<<"$out")
	el=$(sed -n 's/.* spans in \([0-9.]*\) s.*/\1/p' <<<"$out")
	spans=$(awk -v n="$total" -v e="$el" -v d="$drain" 'BEGIN { printf "%.0f", n / (e + d) }')
	local ck
	ck=$(awk -v c=$((c1 - c0)) -v n="$total" 'BEGIN { printf "%.2f", (n ? c * 10 / n * 1000 : 0) }')
	rates[ix]+="$spans "
	cpuks[ix]+="$ck "
	echo "idle ${drain} s after the client stopped (background scans); sustained $spans spans/s"
	echo "server CPU: $(((c1 - c0) * 10)) ms, $ck ms per 1,000 spans"
}
for r in $(seq "$rounds"); do
	echo "### round $r of $rounds"
	bench 0 "lf serve (live scores + trace scans)" ./lf serve --config server-true.yaml --addr "127.0.0.1:$port"
	bench 1 "lf serve, otlp.scan: false (live scores only)" ./lf serve --config server-false.yaml --addr "127.0.0.1:$port"
	bench 2 "Collector (otlp -> nop)" "$otelcol" --config otelcol.yaml
done
most() { tr ' ' '\n' | awk 'NF && ($1 > m || m == "") { m = $1 } END { print m }'; }
least() { tr ' ' '\n' | awk 'NF && ($1 < m || m == "") { m = $1 } END { print m }'; }
rate=() cpuk=()
for ix in 0 1 2; do
	rate+=("$(most <<<"${rates[ix]}")")
	cpuk+=("$(least <<<"${cpuks[ix]}")")
done
# The extra CPU of scans in each round (with against without), for the
# spread beside the best against best.
extra=$(paste -d' ' <(tr ' ' '\n' <<<"${cpuks[0]}" | sed '/^$/d') <(tr ' ' '\n' <<<"${cpuks[1]}" | sed '/^$/d') |
	awk '{ printf "%s%+.0f%%", (NR > 1 ? " " : ""), ($1 / $2 - 1) * 100 }')

stream() { # label: 10,000 spans/s for 20 s (+ probes when lf)
	echo "=== $1 at 10,000 spans/s $(date -u +%H:%M:%S) load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
stream "lf serve (live scores + trace scans): freshness and POST /verdict"
start ./lf serve --config server-true.yaml --addr "127.0.0.1:$port"
"$dir/otlpload" send -url "http://127.0.0.1:$port/v1/traces" -header "Authorization=Bearer $LF_BENCH_KEY" -duration 20s -conc "$conc" -rate 10000 \
	-probe 100ms -verdict "http://127.0.0.1:$port/verdict" -tenant acme >"$dir/stream.out" &
spid=$!
sleep 2
"$dir/lfgen" loadgen -addr "127.0.0.1:$port" -key "$LF_BENCH_KEY" -tenant acme -rate 5000 -duration 15s -warmup 1s >"$dir/loadgen.out" || true
wait "$spid" || true
stop
cat "$dir/stream.out"
grep -E '^(achieved|errors|service latency)' "$dir/loadgen.out" || cat "$dir/loadgen.out"
lflat=$(sed -n 's/^request latency: .*p99 \([^ ]*\) .*/\1/p' "$dir/stream.out")
fresh=$(sed -n 's/^span-to-verdict freshness.*p99 \([^ ]*\) .*/\1/p' "$dir/stream.out")
verdict=$(sed -n 's/^service latency.*p99 \([^ ]*\) .*/\1/p' "$dir/loadgen.out")
stream "Collector (otlp -> nop)"
start "$otelcol" --config otelcol.yaml
"$dir/otlpload" send -url "http://127.0.0.1:$port/v1/traces" -duration 20s -conc "$conc" -rate 10000 >"$dir/stream.out"
stop
cat "$dir/stream.out"
collat=$(sed -n 's/^request latency: .*p99 \([^ ]*\) .*/\1/p' "$dir/stream.out")

echo "=== lf agentleak scan: the same traces as lf's JSONL and as OTLP JSON"
(cd "$root" && "$dir/lfgen" agentleak -o "$dir/traces.jsonl" -repeat 100 >/dev/null)
"$dir/otlpload" convert "$dir/traces.jsonl" "$dir/spans.otlp.jsonl"
scan() { # file args... -> "WALL CPU" in ms of one run (lfgen bestof -n 1)
	local f=$1 out
	shift
	out=$("$dir/lfgen" bestof -n 1 -- "$dir/lf" agentleak scan --no-record -q -o jsonl "$@" "$f" 2>&1 | tail -1)
	sed -n 's/^wall best \([0-9.]*\) ms.*cpu best \([0-9.]*\) ms.*/\1 \2/p' <<<"$out"
}
n=$(wc -l <"$dir/traces.jsonl")
echo "$n traces: JSONL $(du -h "$dir/traces.jsonl" | cut -f1), OTLP JSON $(du -h "$dir/spans.otlp.jsonl" | cut -f1)"
# The two files are scanned one after the other, $scans times, and each
# keeps its best wall time and CPU: the machine's speed drifts by tens of
# per cent over minutes, and this way both meet the same drift.
scans=${LF_BENCH_SCANS:-7}
scanline=()
for w in default 1; do
	args=()
	[ "$w" = default ] || args=(--workers "$w")
	tjw="" tjc="" tow="" toc=""
	for _ in $(seq "$scans"); do
		read -r a b <<<"$(scan "$dir/traces.jsonl" "${args[@]}")"
		read -r c d <<<"$(scan "$dir/spans.otlp.jsonl" "${args[@]}")"
		tjw=$(least <<<"$tjw $a") tjc=$(least <<<"$tjc $b") tow=$(least <<<"$tow $c") toc=$(least <<<"$toc $d")
	done
	scanline+=("$(printf 'workers %s: OTLP JSON %s ms (CPU %s ms), JSONL %s ms (CPU %s ms): %sx the JSONL speed (%sx in CPU), best of %s each' "$w" "$tow" "$toc" "$tjw" "$tjc" \
		"$(awk -v a="$tjw" -v b="$tow" 'BEGIN { printf "%.2f", a / b }')" "$(awk -v a="$tjc" -v b="$toc" 'BEGIN { printf "%.2f", a / b }')" "$scans")")
	echo "${scanline[-1]}"
done

echo "=== summary (load average $(cut -d' ' -f1-3 /proc/loadavg)); best of $rounds rounds"
printf 'lf serve: %s spans/s (%s ms CPU per 1,000 spans); without scans: %s spans/s (%s ms); Collector: %s spans/s (%s ms)\n' \
	"${rate[0]}" "${cpuk[0]}" "${rate[1]}" "${cpuk[1]}" "${rate[2]}" "${cpuk[2]}"
printf 'scanning finished traces costs %s%% more CPU per span than receiving without scanning (best against best; per round: %s)\n' \
	"$(awk -v a="${cpuk[0]}" -v b="${cpuk[1]}" 'BEGIN { printf "%.0f", (b > 0 ? (a / b - 1) * 100 : 0) }')" "$extra"
printf 'at 10,000 spans/s: span-to-verdict freshness p99 %s, POST /verdict p99 %s; OTLP request p99: lf %s, Collector %s\n' \
	"${fresh:-?}" "${verdict:-?}" "${lflat:-?}" "${collat:-?}"
printf 'lf agentleak scan, %s\n' "${scanline[@]}"
printf 'OTLP: lf %s spans/s, Collector %s spans/s: %sx the Collector\n' "${rate[0]}" "${rate[2]}" \
	"$(awk -v a="${rate[0]}" -v b="${rate[2]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
