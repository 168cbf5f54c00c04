#!/usr/bin/env bash
# OpenTelemetry Collector -> lf serve, end to end (CI). Builds
# tools/otelcol-lf (an OpenTelemetry Collector built from the Collector's Go
# modules: otlp receiver, otlphttp and otlp (gRPC) exporters; its own Go
# module) and lf, starts lf serve with an otlp: tenant config, a vault and
# its OTLP/gRPC receiver on, starts the Collector forwarding to lf with the
# tenant's operator key over both protocols (one pipeline each), sends an
# OTLP JSON request of GenAI spans (a canary leaks through a tool call) to
# each pipeline, and checks in lf that the agent was scored (POST /verdict)
# and both traces were scanned and blocked (GET /tenants/acme/leaks).
# Prints how long the Collector took to build.
#
#   bash scripts/otelcol-e2e.sh
#
# LF_OTELCOL=PATH uses an already built Collector; LF_E2E_PORT (18180) is
# lf's port; the Collector's (OTLP/HTTP pipeline), lf's OTLP/gRPC port and
# the Collector's (OTLP/gRPC pipeline) are the next three.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${LF_E2E_PORT:-18180}
cport=$((port + 1))
gport=$((port + 2))
cgport=$((port + 3))
dir=$(mktemp -d /tmp/lf-otelcol-e2e.XXXX)
pids=()
cleanup() {
	local rc=$?
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	[ "$rc" -eq 0 ] || { echo "--- lf serve log"; cat "$dir/serve.log" 2>/dev/null; echo "--- collector log"; tail -30 "$dir/otelcol.log" 2>/dev/null; }
	rm -rf "$dir"
	exit "$rc"
}
trap cleanup EXIT

otelcol=${LF_OTELCOL:-}
if [ -z "$otelcol" ]; then
	start=$(date +%s)
	(cd "$root/tools/otelcol-lf" && go build -o "$dir/otelcol-lf" .)
	echo "otelcol-lf built in $(($(date +%s) - start)) s"
	otelcol=$dir/otelcol-lf
fi
go build -o "$dir/lf" "$root/cmd/lf"

export LF_E2E_KEY=e2e-acme-operator-0123456789 LF_E2E_VIEW=e2e-acme-viewer-0123456789
cat >"$dir/lf.yaml" <<YAML
name: otelcol-e2e
YAML
cat >"$dir/server.yaml" <<YAML
apiKeys:
  - {name: acme-gateway, tenant: acme, role: operator, keyEnv: LF_E2E_KEY}
  - {name: acme-viewer, tenant: acme, role: viewer, keyEnv: LF_E2E_VIEW}
otlp:
  idleTimeout: 5s
  grpc: {listen: "127.0.0.1:$gport"}
  tenants:
    - {tenant: acme, vaults: [vaults.yaml]}
YAML
cat >"$dir/vaults.yaml" <<YAML
vaults:
  - key: e2e-trip
    canaries:
      obvious: ["CANARY-E2E-7"]
YAML
cat >"$dir/otelcol.yaml" <<YAML
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:$cport
  otlp/to_grpc:
    protocols:
      http:
        endpoint: 127.0.0.1:$cgport
exporters:
  otlphttp:
    endpoint: http://127.0.0.1:$port
    compression: gzip
    headers:
      Authorization: "Bearer \${env:LF_E2E_KEY}"
  otlp_grpc:
    endpoint: 127.0.0.1:$gport
    tls: {insecure: true}
    compression: gzip
    headers:
      authorization: "Bearer \${env:LF_E2E_KEY}"
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [otlphttp]
    traces/grpc:
      receivers: [otlp/to_grpc]
      exporters: [otlp_grpc]
YAML

(cd "$dir" && exec ./lf serve --config server.yaml --addr "127.0.0.1:$port") >"$dir/serve.log" 2>&1 &
pids+=($!)
"$otelcol" --config "$dir/otelcol.yaml" >"$dir/otelcol.log" 2>&1 &
pids+=($!)
up() { curl -s -o /dev/null "$1" 2>/dev/null; }
for _ in $(seq 100); do up "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
for cp in "$cport" "$cgport"; do
	for _ in $(seq 200); do
		code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$cp/v1/traces" || true)
		[ "$code" = 200 ] && break
		sleep 0.1
	done
done

now=$(date +%s%N)
span() { # id parent name start-offset-ms attributes-json (trace id: $tid)
	printf '{"traceId":"%s","spanId":"%s","parentSpanId":"%s","name":"%s","kind":1,"startTimeUnixNano":"%s","endTimeUnixNano":"%s","attributes":%s}' \
		"$tid" "$1" "$2" "$3" $((now + $4 * 1000000)) $((now + $4 * 1000000 + 500000)) "$5"
}
s() { printf '{"key":"%s","value":{"stringValue":"%s"}}' "$1" "$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
attrs_chat="[$(s gen_ai.operation.name chat),$(s gen_ai.input.messages '[{"role":"user","parts":[{"type":"text","content":"Book my trip"}]}]')]"
attrs_tool="[$(s gen_ai.operation.name execute_tool),$(s gen_ai.tool.name send_email),$(s gen_ai.tool.call.arguments '{"body":"code CANARY-E2E-7"}')]"
attrs_root="[$(s gen_ai.operation.name invoke_agent),$(s gen_ai.agent.id agt_e2e),$(s gen_ai.conversation.id c-e2e)]"
body() {
	printf '{"resourceSpans":[{"resource":{"attributes":[%s,%s]},"scopeSpans":[{"scope":{"name":"e2e"},"spans":[%s,%s,%s]}]}]}' \
		"$(s service.name e2e-agent)" "$(s agentleak.scenario_id e2e-trip)" \
		"$(span 0000000000000002 0000000000000001 chat 1 "$attrs_chat")" \
		"$(span 0000000000000003 0000000000000001 'execute_tool send_email' 2 "$attrs_tool")" \
		"$(span 0000000000000001 '' 'invoke_agent trip' 0 "$attrs_root")"
}
# One trace through each pipeline: OTLP/HTTP, then OTLP/gRPC into lf.
tid=5e2e0000000000000000000000000001
curl -sf -H 'Content-Type: application/json' -d "$(body)" "http://127.0.0.1:$cport/v1/traces" >/dev/null
tid=5e2e0000000000000000000000000002
curl -sf -H 'Content-Type: application/json' -d "$(body)" "http://127.0.0.1:$cgport/v1/traces" >/dev/null

leaks=""
for _ in $(seq 200); do
	leaks=$(curl -s -H "Authorization: Bearer $LF_E2E_VIEW" "http://127.0.0.1:$port/tenants/acme/leaks")
	case $leaks in *5e2e0000000000000000000000000001*5e2e0000000000000000000000000002* | *5e2e0000000000000000000000000002*5e2e0000000000000000000000000001*) break ;; esac
	sleep 0.1
done
echo "lf /tenants/acme/leaks: $leaks"
for tid in 5e2e0000000000000000000000000001 5e2e0000000000000000000000000002; do
	via=OTLP/HTTP
	[ "$tid" = 5e2e0000000000000000000000000002 ] && via=OTLP/gRPC
	rec=$(printf '%s' "$leaks" | tr '\n' ' ' | sed 's/{"traceId"/\n{"traceId"/g' | grep "\"traceId\":\"$tid\"" || true)
	case $rec in *'"blocked":true'*'"dataType":"canary"'*'"leaked":true'*) ;; *) echo "FAIL: the trace sent through the Collector over $via was not scanned and blocked"; exit 1 ;; esac
done
case $leaks in *CANARY-E2E-7*) echo "FAIL: /leaks shows a raw value"; exit 1 ;; esac
verdict=$(curl -s -H "Authorization: Bearer $LF_E2E_KEY" -d '{"tenantId": "acme", "agentId": "agt_e2e", "method": "tools/call"}' "http://127.0.0.1:$port/verdict")
echo "lf /verdict: $verdict"
case $verdict in *'"scored":true'*) ;; *) echo "FAIL: the agent of the spans has no live score"; exit 1 ;; esac
echo "OK: spans went SDK-less client -> Collector (otlp -> otlphttp, otlp -> otlp_grpc) -> lf serve: scored and scanned over both"
