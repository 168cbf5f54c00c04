package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestOTLPFromOpenTelemetrySDK sends GenAI-attributed spans with the
// OpenTelemetry Go SDK's OTLP/HTTP exporter (protobuf, gzip, batch
// processor: the root span is exported after its children) to lf serve,
// authenticated with a tenant's operator key, and checks the agent's live
// verdict, its risk and the scanned trace in /leaks.
func TestOTLPFromOpenTelemetrySDK(t *testing.T) {
	ts := startServer(t, otlpConfig(t, ""))
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpoint(strings.TrimPrefix(ts.base, "http://")),
		otlptracehttp.WithInsecure(),
		otlptracehttp.WithCompression(otlptracehttp.GzipCompression),
		otlptracehttp.WithHeaders(map[string]string{"Authorization": "Bearer " + keyT1Op}),
	)
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "travel-agent"), attribute.String("agentleak.scenario_id", "sdk-trip"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	tr := tp.Tracer("lf-test")

	actx, root := tr.Start(ctx, "invoke_agent travel", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.id", "agt_sdk"),
		attribute.String("gen_ai.agent.name", "SDK travel agent"),
		attribute.String("gen_ai.conversation.id", "conv-sdk"),
	))
	_, chat := tr.Start(actx, "chat gpt-4o", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Book my trip"}]}]`),
		attribute.String("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","name":"send_email","arguments":{"to":"x@example.com"}}]}]`),
	))
	chat.End()
	for i := 0; i < 3; i++ {
		_, tool := tr.Start(actx, "execute_tool send_email", trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", "send_email"),
			attribute.String("gen_ai.tool.call.arguments", `{"body":"your code is CANARY-SDK-2"}`),
			attribute.String("gen_ai.tool.call.result", "sent"),
			attribute.Bool("lf.high_impact", true),
		))
		tool.End()
	}
	root.End()
	if err := tp.Shutdown(ctx); err != nil { // flushes the batch
		t.Fatalf("exporter: %v", err)
	}
	ts.otlp.waitScans() // the trace's scan runs after the answer

	code, out := ts.call(t, keyT1Op, "POST", "/verdict", `{"tenantId": "t1", "agentId": "agt_sdk", "method": "tools/call"}`)
	var v struct {
		Score  int  `json:"score"`
		Scored bool `json:"scored"`
	}
	if code != 200 || json.Unmarshal(out, &v) != nil || !v.Scored || v.Score <= 0 {
		t.Errorf("verdict: %d %s", code, out)
	}
	code, out = ts.call(t, keyT1, "GET", "/tenants/t1/leaks?blocked=true", nil)
	var leaks LeaksResponse
	if code != 200 || json.Unmarshal(out, &leaks) != nil || len(leaks.Leaks) != 1 {
		t.Fatalf("leaks: %d %s", code, out)
	}
	l := leaks.Leaks[0]
	if l.ScenarioID != "sdk-trip" || l.Spans != 5 || l.Ended != "root" || len(l.Agents) != 1 || l.Agents[0] != "agt_sdk" || !l.Blocked {
		t.Errorf("leak record: %+v", l)
	}
	leaked := 0
	for _, f := range l.Findings {
		if f.DataType == "canary" && f.Leaked {
			leaked++
		}
	}
	if leaked != 3 {
		t.Errorf("%d leaked canary findings, want 3 (one per tool call): %+v", leaked, l.Findings)
	}
	at := time.Now().Add(time.Minute).UTC().Format(time.RFC3339) // the spans started within this second
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/agents/agt_sdk/risk/recalculate?at="+at, nil); code != 200 {
		t.Fatalf("recalculate: %d %s", code, out)
	}
	code, out = ts.call(t, keyT1, "GET", "/tenants/t1/agents/agt_sdk/risk", nil)
	if code != 200 || !strings.Contains(string(out), `"agentName":"SDK travel agent"`) || !strings.Contains(string(out), `"name":"policyViolation","value":`) || strings.Contains(string(out), `"name":"policyViolation","value":0,`) {
		t.Errorf("risk: %d %.600s", code, out)
	}
}
