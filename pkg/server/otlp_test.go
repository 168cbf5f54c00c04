package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// otlpSpan is a span the OTLP tests send.
type otlpSpan struct {
	id, parent byte
	name       string
	attrs      map[string]any
}

// otlpTraces builds one trace (id byte tid) of a service in tenant (""
// names none) from spans, started now.
func otlpTraces(tenant string, tid byte, spans ...otlpSpan) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel-agent")
	if tenant != "" {
		rs.Resource().Attributes().PutStr("lf.tenant_id", tenant)
	}
	ss := rs.ScopeSpans().AppendEmpty()
	start := time.Now().Add(-time.Minute)
	for i, sp := range spans {
		s := ss.Spans().AppendEmpty()
		s.SetName(sp.name)
		s.SetTraceID(pcommon.TraceID{tid, 1})
		s.SetSpanID(pcommon.SpanID{sp.id})
		if sp.parent != 0 {
			s.SetParentSpanID(pcommon.SpanID{sp.parent})
		}
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i) * time.Second)))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i)*time.Second + 500*time.Millisecond)))
		_ = s.Attributes().FromRaw(sp.attrs)
	}
	return td
}

// leakyTrace: an agent books a trip and sends the customer's canary code to
// a tool; the root span (the agent) comes last, as batch exporters send it.
func leakyTrace(tenant string, tid byte) ptrace.Traces {
	return otlpTraces(tenant, tid,
		otlpSpan{2, 1, "chat", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.input.messages": `[{"role":"user","parts":[{"type":"text","content":"Book a trip for me"}]}]`}},
		otlpSpan{3, 1, "execute_tool send_email", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email", "gen_ai.tool.call.arguments": `{"body":"code CANARY-TRV-1"}`, "lf.high_impact": true}},
		otlpSpan{1, 0, "invoke_agent travel", map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "agt_travel", "gen_ai.agent.name": "Travel", "gen_ai.conversation.id": "c1"}},
	)
}

func otlpConfig(t *testing.T, extra string) *Config {
	dir := t.TempDir()
	vaults := filepath.Join(dir, "vaults.yaml")
	if err := os.WriteFile(vaults, []byte("vaults:\n  - key: 0a010000000000000000000000000000\n    canaries:\n      obvious: [\"CANARY-TRV-1\"]\n  - key: sdk-trip\n    canaries:\n      obvious: [\"CANARY-SDK-2\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return testConfig(t, "otlp:\n  idleTimeout: 1h\n  tenants:\n    - {tenant: t1, vaults: ["+vaults+"]}\n"+extra)
}

// postOTLP sends traces as protobuf (gzip) or JSON and returns the status,
// the headers and the body.
func postOTLP(t *testing.T, base, key, enc string, td ptrace.Traces, gz bool) (int, http.Header, []byte) {
	t.Helper()
	var body []byte
	if enc == ctJSON {
		body, _ = (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	} else {
		body, _ = (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	}
	return postRaw(t, base, key, enc, body, gz)
}

func postRaw(t *testing.T, base, key, ctype string, body []byte, gz bool) (int, http.Header, []byte) {
	t.Helper()
	if gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		body = b.Bytes()
	}
	req, _ := http.NewRequest("POST", base+"/v1/traces", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+key)
	if gz {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

// TestOTLPReceiver: protobuf with gzip from a tenant's operator key; the
// tool span updates the agent's live score; the finished trace is scanned
// with the tenant's vaults, listed by GET /leaks (values redacted), and its
// block counts as a policy denial of the agent whose span leaked.
func TestOTLPReceiver(t *testing.T) {
	ts := startServer(t, otlpConfig(t, ""))
	code, hdr, out := postOTLP(t, ts.base, keyT1Op, ctProto, leakyTrace("", 0x0a), true)
	if code != 200 || hdr.Get("Content-Type") != ctProto || len(out) != 0 {
		t.Fatalf("%d %s %q", code, hdr.Get("Content-Type"), out)
	}
	ts.otlp.waitScans() // the scan runs after the answer
	code, out = ts.call(t, keyT1, "GET", "/tenants/t1/leaks", nil)
	var leaks LeaksResponse
	if code != 200 || json.Unmarshal(out, &leaks) != nil || len(leaks.Leaks) != 1 {
		t.Fatalf("leaks: %d %s", code, out)
	}
	l := leaks.Leaks[0]
	if l.TraceID != "0a010000000000000000000000000000" || !l.Blocked || l.Ended != "root" || l.Spans != 3 || len(l.Agents) != 1 || l.Agents[0] != "agt_travel" {
		t.Errorf("leak record: %+v", l)
	}
	canary := false
	for _, f := range l.Findings {
		if f.DataType == "canary" && f.Leaked && f.Channel == "tool_call" && f.Agent == "agt_travel" {
			canary = true
		}
		if strings.Contains(f.Value, "CANARY-TRV-1") {
			t.Errorf("a value is not redacted: %+v", f)
		}
	}
	if !canary {
		t.Errorf("no leaked canary finding: %+v", l.Findings)
	}
	if strings.Contains(string(out), "CANARY-TRV-1") {
		t.Errorf("/leaks shows a raw value: %s", out)
	}
	// The live path scored the agent before any recalculation.
	code, out = ts.call(t, keyT1Op, "POST", "/verdict", `{"tenantId": "t1", "agentId": "agt_travel", "method": "tools/call"}`)
	var v struct {
		Score  int  `json:"score"`
		Scored bool `json:"scored"`
	}
	if code != 200 || json.Unmarshal(out, &v) != nil || !v.Scored || v.Score <= 0 {
		t.Errorf("verdict after the spans: %d %s", code, out)
	}
	// The agent: one tool call (high impact) and the denial of the blocked trace.
	code, out = ts.call(t, keyT1, "POST", "/tenants/t1/agents/agt_travel/risk/recalculate", nil)
	if code != 200 {
		t.Fatalf("recalculate: %d %s", code, out)
	}
	code, out = ts.call(t, keyT1, "GET", "/tenants/t1/agents/agt_travel/risk", nil)
	var risk struct {
		Score      int `json:"score"`
		Components []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"components"`
	}
	if code != 200 || json.Unmarshal(out, &risk) != nil {
		t.Fatalf("risk: %d %s", code, out)
	}
	got := map[string]float64{}
	for _, c := range risk.Components {
		got[c.Name] = c.Value
	}
	if got["policyViolation"] <= 0 || got["excessiveAgency"] <= 0 || risk.Score <= 0 {
		t.Errorf("agent risk after a blocked trace: score %d, components %v", risk.Score, got)
	}
	// Tenant isolation: t2 sees neither t1's leaks nor an empty list of t1.
	if code, out := ts.call(t, keyT2, "GET", "/tenants/t1/leaks", nil); code != 404 {
		t.Errorf("t2 on t1's leaks: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT2, "GET", "/tenants/t2/leaks", nil); code != 200 || string(bytes.TrimSpace(out)) != `{"leaks":[]}` {
		t.Errorf("t2's leaks: %d %s", code, out)
	}
}

// TestOTLPPartialSuccess: spans naming another tenant, and an admin key's
// spans naming none, are rejected and counted in partialSuccess.
func TestOTLPPartialSuccess(t *testing.T) {
	ts := startServer(t, otlpConfig(t, ""))
	td := leakyTrace("t2", 0x0b)
	code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, td, false)
	if code != 200 || !strings.Contains(string(out), `"rejectedSpans":"3"`) || !strings.Contains(string(out), `not the key's tenant`) {
		t.Errorf("another tenant's spans: %d %s", code, out)
	}
	code, _, out = postOTLP(t, ts.base, keyAdmin, ctJSON, leakyTrace("", 0x0c), false)
	if code != 200 || !strings.Contains(string(out), `"rejectedSpans":"3"`) {
		t.Errorf("admin key, no tenant: %d %s", code, out)
	}
	code, _, out = postOTLP(t, ts.base, keyAdmin, ctJSON, leakyTrace("t2", 0x0d), false)
	if code != 200 || string(out) != "{}" {
		t.Errorf("admin key, tenant t2: %d %s", code, out)
	}
	// Protobuf partial success decodes as an ExportTraceServiceResponse.
	code, _, out = postOTLP(t, ts.base, keyT1Op, ctProto, leakyTrace("t2", 0x0e), false)
	if code != 200 || !bytes.Contains(out, []byte("not the key's tenant")) || out[0] != 0x0a || out[2] != 0x08 || out[3] != 3 {
		t.Errorf("protobuf partial success: %d %x", code, out)
	}
	ts.otlp.waitScans()
	if code, out := ts.call(t, keyT2, "GET", "/tenants/t2/leaks", nil); code != 200 || !strings.Contains(string(out), `"traceId":"0d01`) || strings.Contains(string(out), `"traceId":"0b01`) {
		t.Errorf("t2's leaks: %d %s", code, out)
	}
}

// TestOTLPErrors: the answers of the OTLP/HTTP specification.
func TestOTLPErrors(t *testing.T) {
	t.Parallel() // its server's shutdown waits about 0.5 s for a closing connection
	ts := startServer(t, otlpConfig(t, "maxBodyBytes: 4096\n"))
	if code, _, out := postRaw(t, ts.base, keyT1Op, "text/plain", []byte("x"), false); code != 415 || !strings.Contains(string(out), "Content-Type") {
		t.Errorf("text/plain: %d %s", code, out)
	}
	if code, _, out := postRaw(t, ts.base, keyT1Op, ctJSON, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}`), false); code != 400 || !strings.Contains(string(out), `"code":3`) {
		t.Errorf("bad JSON request: %d %s", code, out)
	}
	if code, _, out := postRaw(t, ts.base, keyT1Op, ctProto, []byte{0x0a, 0xff}, false); code != 400 || out[0] != 0x08 || out[1] != 3 {
		t.Errorf("bad protobuf request: %d %x", code, out)
	}
	big := bytes.Repeat([]byte(" "), 8192)
	if code, _, out := postRaw(t, ts.base, keyT1Op, ctJSON, big, false); code != 413 {
		t.Errorf("large body: %d %s", code, out)
	}
	if code, _, out := postRaw(t, ts.base, keyT1Op, ctJSON, append([]byte("{}"), big...), true); code != 413 || !strings.Contains(string(out), "uncompressed") {
		t.Errorf("gzip bomb: %d %s", code, out)
	}
	if code, _, out := postRaw(t, ts.base, keyT1View, ctJSON, []byte("{}"), false); code != 403 || !strings.Contains(string(out), `"code":7`) {
		t.Errorf("viewer key: %d %s", code, out)
	}
	if code, _, _ := postRaw(t, ts.base, "wrong-key-0123456789abcdef", ctJSON, []byte("{}"), false); code != 401 {
		t.Errorf("wrong key: %d", code)
	}
}

// TestOTLPBackpressureAndIdle: a tenant holding maxPendingSpans spans of
// unfinished traces gets 429 with Retry-After; the idle sweep scans them.
func TestOTLPBackpressureAndIdle(t *testing.T) {
	ts := startServer(t, otlpConfig(t, "").withPending(2))
	noRoot := otlpTraces("", 0x21, otlpSpan{2, 1, "execute_tool a", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a", "gen_ai.agent.id": "agt_a"}},
		otlpSpan{3, 1, "execute_tool b", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b", "gen_ai.agent.id": "agt_a"}})
	if code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, noRoot, false); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	code, hdr, out := postOTLP(t, ts.base, keyT1Op, ctJSON, noRoot, false)
	if code != 429 || hdr.Get("Retry-After") == "" || !strings.Contains(string(out), `"code":8`) {
		t.Errorf("full tenant: %d %q %s", code, hdr.Get("Retry-After"), out)
	}
	// Another tenant is not held back.
	if code, _, out := postOTLP(t, ts.base, keyT2, ctJSON, otlpTraces("", 0x22, otlpSpan{1, 0, "root", nil}), false); code != 200 {
		t.Errorf("t2: %d %s", code, out)
	}
	ts.otlp.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	ts.otlp.sweep()
	ts.otlp.waitScans()
	code, out = ts.call(t, keyT1, "GET", "/tenants/t1/leaks", nil)
	if code != 200 || !strings.Contains(string(out), `"ended":"idle"`) || !strings.Contains(string(out), `"spans":2`) {
		t.Errorf("idle trace: %d %s", code, out)
	}
	if code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, noRoot, false); code != 200 {
		t.Errorf("after the sweep: %d %s", code, out)
	}
}

// withPending sets otlp.maxPendingSpans of a test config.
func (c *Config) withPending(n int) *Config {
	if c.OTLP == nil {
		c.OTLP = &OTLPConfig{}
	}
	c.OTLP.MaxPendingSpans = n
	return c
}

// TestOTLPAgentLimit: spans that would take a tenant past
// limits.maxAgentsPerTenant are rejected (partial success), nothing of
// them is stored.
func TestOTLPAgentLimit(t *testing.T) {
	ts := startServer(t, otlpConfig(t, "limits: {maxAgentsPerTenant: 1}\n"))
	one := func(tid byte, agent string) ptrace.Traces {
		return otlpTraces("", tid, otlpSpan{2, 1, "execute_tool a", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a", "gen_ai.agent.id": agent}})
	}
	if code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, one(0x31, "agt_one"), false); code != 200 || string(out) != "{}" {
		t.Fatalf("first agent: %d %s", code, out)
	}
	code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, one(0x32, "agt_two"), false)
	if code != 200 || !strings.Contains(string(out), `"rejectedSpans":"1"`) || !strings.Contains(string(out), "maxAgentsPerTenant") {
		t.Errorf("second agent: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1Op, "POST", "/verdict", `{"tenantId": "t1", "agentId": "agt_two", "method": "tools/call"}`); code != 200 || strings.Contains(string(out), `"scored":true`) {
		t.Errorf("the rejected agent was stored: %d %s", code, out)
	}
}

// TestOTLPFutureSpans: a span dated beyond the tenant's clock skew is
// rejected in partialSuccess (the engine refuses it), not a server error.
func TestOTLPFutureSpans(t *testing.T) {
	ts := startServer(t, otlpConfig(t, ""))
	td := otlpTraces("", 0x41, otlpSpan{2, 1, "execute_tool a", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a", "gen_ai.agent.id": "agt_f"}})
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SetStartTimestamp(pcommon.NewTimestampFromTime(time.Now().Add(48 * time.Hour)))
	code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, td, false)
	if code != 200 || !strings.Contains(string(out), `"rejectedSpans":"1"`) || !strings.Contains(string(out), "ahead of this machine") {
		t.Errorf("future span: %d %s", code, out)
	}
}
