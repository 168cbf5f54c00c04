package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/schemas"
)

const (
	keyT1       = "t1-key-0123456789abcdef"
	keyT2       = "t2-key-0123456789abcdef"
	keyAdmin    = "admin-key-0123456789abcdef"
	keyT1View   = "t1-viewer-0123456789abcdef"
	keyT1Op     = "t1-operator-0123456789abcdef"
	keyT1NoRole = "t1-norole-0123456789abcdef"
)

func testConfig(t *testing.T, extra string) *Config {
	t.Helper()
	y := `apiKeys:
  - {name: t1-admin, tenant: t1, role: admin, key: ` + keyT1 + `}
  - {name: t2-admin, tenant: t2, role: admin, keyEnv: T2_KEY}
  - {name: ops, admin: true, key: ` + keyAdmin + `}
  - {name: t1-viewer, tenant: t1, role: viewer, key: ` + keyT1View + `}
  - {name: t1-gateway, tenant: t1, role: operator, key: ` + keyT1Op + `}
  - {name: t1-norole, tenant: t1, key: ` + keyT1NoRole + `}
secrets:
  - {name: hook, tenant: t1, valueEnv: T1_HOOK_SECRET}
  - {name: hook, tenant: t2, value: t2-signing-secret}
  - {name: demo, tenant: acme, value: demo-secret-0123456789}
recalcInterval: 1h
delivery: {baseBackoff: 10ms, maxAttempts: 3}
` + extra
	cfg, d := LoadConfig("server.yaml", []byte(y), func(k string) string {
		switch k {
		case "T2_KEY":
			return keyT2
		case "T1_HOOK_SECRET":
			return "whsec"
		}
		return ""
	})
	if d.HasErrors() {
		t.Fatalf("config: %v", d)
	}
	return cfg
}

type testServer struct {
	*Server
	base   string
	cancel context.CancelFunc
	done   chan error
}

// newServer opens a store in a temporary folder and a Server on it with
// cfg, without a listener; both are closed when the test ends.
func newServer(t *testing.T, cfg *Config) *Server {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir()+"/lf.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := New(ctx, cfg, st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func startServer(t *testing.T, cfg *Config) *testServer {
	t.Helper()
	ctx := context.Background()
	s := newServer(t, cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	ts := &testServer{Server: s, base: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { ts.done <- s.Serve(sctx, ln, 5*time.Second) }()
	t.Cleanup(func() { ts.stop(t) })
	return ts
}

func (ts *testServer) stop(t *testing.T) {
	if ts.cancel == nil {
		return
	}
	ts.cancel()
	ts.cancel = nil
	if err := <-ts.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// call sends a request and returns the status and body.
func (ts *testServer) call(t *testing.T, key, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, ts.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// openAPI validates live responses against the response schemas of
// schemas/openapi.json.
type openAPI struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	cache    map[string]*jsonschema.Schema
}

func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	b, err := schemas.FS.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	o := &openAPI{cache: map[string]*jsonschema.Schema{}}
	if err := json.Unmarshal(b, &o.doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		name, ok := strings.CutPrefix(u, "lf:///schemas/")
		if !ok {
			return nil, fmt.Errorf("only embedded schemas: %s", u)
		}
		b, err := schemas.FS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	o.compiler = c
	return o
}

func escape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// check validates body as the response of method path (an OpenAPI path
// template) with status.
func (o *openAPI) check(t *testing.T, method, path string, status int, body []byte) {
	t.Helper()
	paths := o.doc["paths"].(map[string]any)
	item, ok := paths[path].(map[string]any)
	if !ok {
		t.Fatalf("openapi: no path %s", path)
	}
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		t.Fatalf("openapi: no %s %s", method, path)
	}
	code := fmt.Sprint(status)
	resp, ok := op["responses"].(map[string]any)[code].(map[string]any)
	if !ok {
		t.Errorf("openapi: %s %s does not document status %d (body %s)", method, path, status, body)
		return
	}
	content, _ := resp["content"].(map[string]any)
	if content == nil {
		if len(bytes.TrimSpace(body)) != 0 {
			t.Errorf("openapi: %s %s %d documents no body, got %s", method, path, status, body)
		}
		return
	}
	ptr := "lf:///schemas/openapi.json#/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/" + code + "/content/application~1json/schema"
	o.mu.Lock()
	sch, ok := o.cache[ptr]
	if !ok {
		var err error
		sch, err = o.compiler.Compile(ptr)
		if err != nil {
			o.mu.Unlock()
			t.Fatalf("openapi: compile %s: %v", ptr, err)
		}
		o.cache[ptr] = sch
	}
	o.mu.Unlock()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("%s %s: response is not JSON: %v: %s", method, path, err, body)
		return
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s %s %d: response does not match openapi.json: %v\nbody: %s", method, path, status, err, body)
	}
}

// events returns NDJSON: a well-behaved agent and a misbehaving one in
// tenant, spread over the last hours.
func events(tenant string, n int) string {
	var b strings.Builder
	now := time.Now().UTC()
	for i := range n {
		ts := now.Add(-time.Duration(n-i) * time.Minute).Format(time.RFC3339)
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":%q,"agent_id":"good","agent_name":"support-bot","session_id":"s%d","method":"tools/call","tool":"read_file","decision":"allow","injection_score":0.01}`+"\n", ts, tenant, i%5)
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":%q,"agent_id":"bad","agent_name":"rogue-bot","session_id":"s%d","method":"tools/call","tool":"exec_%d","high_impact":true,"decision":"deny","rule":"no-exec","injection_score":0.98}`+"\n", ts, tenant, i%2, i%7)
	}
	return b.String()
}

// lowThresholds makes the misbehaving agent critical whatever the exact
// weights of the engine are.
const lowThresholds = `{"enabled": true, "elevatedThreshold": 3, "highThreshold": 4, "criticalThreshold": 5, "criticalAllowedMethods": ["ping"]}`

func TestAPIEndToEnd(t *testing.T) {
	oa := loadOpenAPI(t)
	var mu sync.Mutex
	var hooks []*http.Request
	var hookBodies [][]byte
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooks = append(hooks, r)
		hookBodies = append(hookBodies, b)
		mu.Unlock()
	}))
	defer receiver.Close()
	ts := startServer(t, testConfig(t, "webhookAllowHosts: [\"127.0.0.1:*\"]\n"))

	do := func(key, method, path, tmpl string, body any, want int) []byte {
		t.Helper()
		code, out := ts.call(t, key, method, path, body)
		if code != want {
			t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, out)
		}
		oa.check(t, method, tmpl, code, out)
		return out
	}

	do("", "GET", "/healthz", "/healthz", nil, 200)
	code, out := ts.call(t, "", "GET", "/openapi.json", nil)
	if code != 200 || !bytes.Contains(out, []byte(`"openapi"`)) {
		t.Fatalf("openapi.json: %d", code)
	}

	// Events, config, rules.
	res := do(keyT1, "POST", "/tenants/t1/events", "/tenants/{tenantId}/events", events("t1", 60), 200)
	var ing struct{ Events, New, Agents int }
	json.Unmarshal(res, &ing)
	if ing.Events != 120 || ing.New != 120 || ing.Agents != 2 {
		t.Errorf("ingest: %s", res)
	}
	do(keyT2, "POST", "/tenants/t2/events", "/tenants/{tenantId}/events", "["+strings.Join(strings.Split(strings.TrimSpace(events("t2", 5)), "\n"), ",")+"]", 200)
	do(keyT1, "GET", "/tenants/t1/risk-config", "/tenants/{tenantId}/risk-config", nil, 200)
	do(keyT1, "PUT", "/tenants/t1/risk-config", "/tenants/{tenantId}/risk-config", lowThresholds, 200)
	bad := do(keyT1, "PUT", "/tenants/t1/risk-config", "/tenants/{tenantId}/risk-config", `{"elevatedThreshold": 500}`, 400)
	var eb ErrorBody
	json.Unmarshal(bad, &eb)
	if eb.Field != "/elevatedThreshold" {
		t.Errorf("bad config names field %q: %s", eb.Field, bad)
	}
	bad = do(keyT1, "PUT", "/tenants/t1/risk-config", "/tenants/{tenantId}/risk-config", `{"elevatedTreshold": 50}`, 400)
	if !strings.Contains(string(bad), "elevatedTreshold") {
		t.Errorf("unknown field not named: %s", bad)
	}
	rule := map[string]any{"id": "crit", "tier": "critical", "channel": "webhook", "url": receiver.URL + "/hook", "secretName": "hook"}
	out = do(keyT1, "POST", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", rule, 201)
	if strings.Contains(string(out), "whsec") {
		t.Errorf("rule response leaks the secret: %s", out)
	}
	do(keyT1, "POST", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", map[string]any{"threshold": 50, "channel": "webhook", "url": "ftp://127.0.0.1/", "secretName": "hook"}, 400)
	out = do(keyT1, "POST", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", map[string]any{"threshold": 50, "channel": "webhook", "url": "http://evil.example.com/", "secretName": "hook"}, 400)
	json.Unmarshal(out, &eb)
	if eb.Field != "/url" {
		t.Errorf("allow-list rejection names %q: %s", eb.Field, out)
	}
	out = do(keyT1, "POST", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", map[string]any{"id": "tmp", "threshold": 99, "channel": "email", "to": []string{"a@example.com"}}, 201)
	do(keyT1, "DELETE", "/tenants/t1/alert-rules/tmp", "/tenants/{tenantId}/alert-rules/{ruleId}", nil, 204)
	do(keyT1, "DELETE", "/tenants/t1/alert-rules/tmp", "/tenants/{tenantId}/alert-rules/{ruleId}", nil, 404)
	out = do(keyT1, "GET", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", nil, 200)
	var rules []alerts.PublicRule
	json.Unmarshal(out, &rules)
	if len(rules) != 1 || rules[0].ID != "crit" || !rules[0].HasSecret {
		t.Errorf("rules: %s", out)
	}

	// Before any recalculation the agent has no stored score, but its
	// verdicts already reflect its events (the live path).
	do(keyT1, "GET", "/tenants/t1/agents/bad/risk", "/tenants/{tenantId}/agents/{agentId}/risk", nil, 404)
	out = do(keyT1, "POST", "/verdict", "/verdict", VerdictRequest{TenantID: "t1", AgentID: "bad", Method: "tools/call"}, 200)
	var v VerdictResponse
	json.Unmarshal(out, &v)
	if !v.Scored || v.Action != "block" || v.Reason != "critical_risk" {
		t.Errorf("live verdict before any recalculation: %s", out)
	}
	out = do(keyT1, "POST", "/verdict", "/verdict", VerdictRequest{TenantID: "t1", AgentID: "nobody", Method: "tools/call"}, 200)
	if json.Unmarshal(out, &v); v.Scored || v.Action != "allow" {
		t.Errorf("unscored verdict: %s", out)
	}

	out = do(keyT1, "POST", "/tenants/t1/risk/recalculate", "/tenants/{tenantId}/risk/recalculate", nil, 200)
	var rr RecalcResponse
	json.Unmarshal(out, &rr)
	if rr.Recalculated != 2 {
		t.Errorf("recalculate: %s", out)
	}
	do(keyT1, "POST", "/tenants/t1/agents/good/risk/recalculate", "/tenants/{tenantId}/agents/{agentId}/risk/recalculate", nil, 200)
	out = do(keyT1, "GET", "/tenants/t1/agents", "/tenants/{tenantId}/agents", nil, 200)
	var list []map[string]any
	json.Unmarshal(out, &list)
	if len(list) != 2 || list[0]["agentId"] != "bad" || list[0]["riskTier"] != "critical" {
		t.Fatalf("listAll: %s", out)
	}
	do(keyT1, "GET", "/tenants/t1/agents/bad/risk", "/tenants/{tenantId}/agents/{agentId}/risk", nil, 200)
	do(keyT1, "GET", "/tenants/t1/agents/nobody/risk", "/tenants/{tenantId}/agents/{agentId}/risk", nil, 404)
	do(keyT1, "GET", "/tenants/t1/agents/bad/baseline", "/tenants/{tenantId}/agents/{agentId}/baseline", nil, 200)
	do(keyT1, "DELETE", "/tenants/t1/agents/bad/baseline", "/tenants/{tenantId}/agents/{agentId}/baseline", nil, 204)
	do(keyT1, "GET", "/tenants/t1/agents/bad/baseline", "/tenants/{tenantId}/agents/{agentId}/baseline", nil, 200)

	// The critical agent is blocked, except for allowed methods and in shadow mode.
	out = do(keyT1, "POST", "/verdict", "/verdict", VerdictRequest{TenantID: "t1", AgentID: "bad", Method: "tools/call"}, 200)
	json.Unmarshal(out, &v)
	if !v.Scored || v.Action != "block" || v.Reason != "critical_risk" {
		t.Errorf("critical verdict: %s", out)
	}
	out = do(keyT1, "POST", "/verdict", "/verdict", VerdictRequest{TenantID: "t1", AgentID: "bad", Method: "ping"}, 200)
	json.Unmarshal(out, &v)
	if v.Action != "allow" {
		t.Errorf("ping verdict: %s", out)
	}
	out = do(keyT1, "POST", "/tenants/t1/agents/bad/release", "/tenants/{tenantId}/agents/{agentId}/release", nil, 200)
	out = do(keyT1, "POST", "/verdict", "/verdict", VerdictRequest{TenantID: "t1", AgentID: "bad", Method: "tools/call"}, 200)
	json.Unmarshal(out, &v)
	if v.Action != "allow" {
		t.Errorf("verdict after release: %s", out)
	}

	// The webhook fired once, signed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(hooks)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	do(keyT1, "POST", "/tenants/t1/risk/recalculate", "/tenants/{tenantId}/risk/recalculate", nil, 200) // still critical: no second alert
	mu.Lock()
	if len(hooks) != 1 {
		t.Fatalf("webhook calls: %d, want 1", len(hooks))
	}
	h, hb := hooks[0], hookBodies[0]
	mu.Unlock()
	if !alerts.Verify("whsec", h.Header.Get(alerts.TimestampHeader), hb, h.Header.Get(alerts.SignatureHeader)) {
		t.Errorf("webhook signature does not verify")
	}
	var payload map[string]any
	json.Unmarshal(hb, &payload)
	if payload["agentId"] != "bad" || payload["newTier"] != "critical" || payload["tenantId"] != "t1" || payload["agentName"] != "rogue-bot" {
		t.Errorf("webhook payload: %s", hb)
	}
	sch, err := oa.compiler.Compile("lf:///schemas/openapi.json#/components/schemas/AlertPayload")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(payload); err != nil {
		t.Errorf("webhook body does not match AlertPayload: %v", err)
	}
	// The receiver saw the webhook before the server recorded the delivery
	// (it is stored once the response is read): poll for the record.
	var ds []alerts.Delivery
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out = do(keyT1, "GET", "/tenants/t1/alert-deliveries", "/tenants/{tenantId}/alert-deliveries", nil, 200)
		ds = nil
		json.Unmarshal(out, &ds)
		if len(ds) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(ds) != 1 || ds[0].Status != "delivered" || ds[0].StatusCode != 200 {
		t.Errorf("deliveries: %s", out)
	}
	do(keyT1, "GET", "/tenants/t1/alert-deliveries?limit=0", "/tenants/{tenantId}/alert-deliveries", nil, 400)

	// Admin sees every tenant.
	do(keyAdmin, "GET", "/tenants/t2/agents", "/tenants/{tenantId}/agents", nil, 200)
	do(keyAdmin, "GET", "/tenants/t1/agents", "/tenants/{tenantId}/agents", nil, 200)
}

func TestTenantIsolation(t *testing.T) {
	oa := loadOpenAPI(t)
	ts := startServer(t, testConfig(t, ""))
	ts.call(t, keyT2, "POST", "/tenants/t2/events?recalculate=true", events("t2", 10))
	endpoints := []struct{ method, path, tmpl, body string }{
		{"GET", "/tenants/t2/agents", "/tenants/{tenantId}/agents", ""},
		{"GET", "/tenants/t2/agents/bad/risk", "/tenants/{tenantId}/agents/{agentId}/risk", ""},
		{"POST", "/tenants/t2/risk/recalculate", "/tenants/{tenantId}/risk/recalculate", ""},
		{"POST", "/tenants/t2/agents/bad/risk/recalculate", "/tenants/{tenantId}/agents/{agentId}/risk/recalculate", ""},
		{"GET", "/tenants/t2/agents/bad/baseline", "/tenants/{tenantId}/agents/{agentId}/baseline", ""},
		{"DELETE", "/tenants/t2/agents/bad/baseline", "/tenants/{tenantId}/agents/{agentId}/baseline", ""},
		{"POST", "/tenants/t2/agents/bad/release", "/tenants/{tenantId}/agents/{agentId}/release", ""},
		{"GET", "/tenants/t2/risk-config", "/tenants/{tenantId}/risk-config", ""},
		{"PUT", "/tenants/t2/risk-config", "/tenants/{tenantId}/risk-config", `{"enabled": true}`},
		{"POST", "/tenants/t2/events", "/tenants/{tenantId}/events", events("t2", 1)},
		{"GET", "/tenants/t2/alert-rules", "/tenants/{tenantId}/alert-rules", ""},
		{"POST", "/tenants/t2/alert-rules", "/tenants/{tenantId}/alert-rules", `{"threshold": 1, "channel": "email", "to": ["a@b.c"]}`},
		{"DELETE", "/tenants/t2/alert-rules/x", "/tenants/{tenantId}/alert-rules/{ruleId}", ""},
		{"GET", "/tenants/t2/alert-deliveries", "/tenants/{tenantId}/alert-deliveries", ""},
		{"POST", "/verdict", "/verdict", `{"tenantId": "t2", "agentId": "bad", "method": "tools/call"}`},
	}
	for _, e := range endpoints {
		t.Run(e.method+" "+e.path, func(t *testing.T) {
			var body any
			if e.body != "" {
				body = e.body
			}
			code, out := ts.call(t, keyT1, e.method, e.path, body)
			if code != http.StatusNotFound {
				t.Errorf("t1 key: status %d, want 404: %s", code, out)
			}
			oa.check(t, e.method, e.tmpl, code, out)
			for _, key := range []string{"", "wrong-key-0123456789abcdef", keyT2 + "x"} {
				code, out = ts.call(t, key, e.method, e.path, body)
				if code != http.StatusUnauthorized {
					t.Errorf("key %q: status %d, want 401: %s", key, code, out)
				}
				oa.check(t, e.method, e.tmpl, code, out)
			}
		})
	}
	// t2's data is unchanged by all of this.
	code, out := ts.call(t, keyT2, "GET", "/tenants/t2/risk-config", nil)
	if code != 200 || strings.Contains(string(out), `"enabled":true`) {
		t.Errorf("t2 config changed: %s", out)
	}
	code, out = ts.call(t, keyT2, "GET", "/tenants/t2/alert-rules", nil)
	if code != 200 || string(bytes.TrimSpace(out)) != "[]" {
		t.Errorf("t2 rules changed: %s", out)
	}
}

func TestRateCounterPerTenant(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	if code, out := ts.call(t, keyT1, "PUT", "/tenants/t1/risk-config", `{"rateLimit": {"limit": 3, "windowSeconds": 3600}}`); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	// Pin the clock inside one window.
	ts.now = func() time.Time { return time.Unix(7200*1000+10, 0) }
	var actions []string
	for range 5 {
		_, out := ts.call(t, keyT1, "POST", "/verdict", `{"tenantId": "t1", "agentId": "a", "method": "tools/call"}`)
		var v VerdictResponse
		json.Unmarshal(out, &v)
		actions = append(actions, v.Action+"/"+v.Reason)
	}
	if got := strings.Join(actions, ","); got != "allow/,allow/,allow/,block/rate_limit,block/rate_limit" {
		t.Errorf("t1 verdicts: %s", got)
	}
	_, out := ts.call(t, keyT2, "POST", "/verdict", `{"tenantId": "t2", "agentId": "a", "method": "tools/call"}`)
	if !strings.Contains(string(out), `"action":"allow"`) {
		t.Errorf("t2 shares t1's counter: %s", out)
	}
	ts.now = func() time.Time { return time.Unix(7200*1000+3600+10, 0) } // next window
	_, out = ts.call(t, keyT1, "POST", "/verdict", `{"tenantId": "t1", "agentId": "a", "method": "tools/call"}`)
	if !strings.Contains(string(out), `"action":"allow"`) {
		t.Errorf("new window still blocked: %s", out)
	}
}

func TestMalformedBurstKeepsServing(t *testing.T) {
	oa := loadOpenAPI(t)
	ts := startServer(t, testConfig(t, ""))
	bodies := []struct{ path, tmpl, body string }{
		{"/verdict", "/verdict", `{"tenantId": "t1", "agentId":`},
		{"/verdict", "/verdict", `[1,2,3]`},
		{"/verdict", "/verdict", `{"tenantId": 5, "agentId": "a", "method": "m"}`},
		{"/verdict", "/verdict", `{"tenantId": "t1", "agentId": "a"}`},
		{"/verdict", "/verdict", `{"tenantId": "t1", "agentId": "a", "method": "m", "extra": 1}`},
		{"/verdict", "/verdict", "\x00\xff\xfe garbage"},
		{"/verdict", "/verdict", ``},
		{"/tenants/t1/events", "/tenants/{tenantId}/events", `{"timestamp": "yesterday", "tenant_id": "t1"}`},
		{"/tenants/t1/events", "/tenants/{tenantId}/events", `[{"agent_id": 7}]`},
		{"/tenants/t1/events", "/tenants/{tenantId}/events", "not json at all\n{{{"},
		{"/tenants/t1/events", "/tenants/{tenantId}/events", ``},
		{"/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", `{"channel": "sms"}`},
		{"/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", `{: :`},
	}
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				b := bodies[(w+i)%len(bodies)]
				code, out := ts.call(t, keyT1, "POST", b.path, b.body)
				if code != http.StatusBadRequest {
					errs <- fmt.Sprintf("%s %q: %d %s", b.path, b.body, code, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, b := range bodies {
		code, out := ts.call(t, keyT1, "POST", b.path, b.body)
		oa.check(t, "POST", b.tmpl, code, out)
	}
	if code, _ := ts.call(t, "", "GET", "/healthz", nil); code != 200 {
		t.Fatalf("healthz after the burst: %d", code)
	}
	code, out := ts.call(t, keyT1, "POST", "/verdict", `{"tenantId": "t1", "agentId": "a", "method": "tools/call"}`)
	if code != 200 {
		t.Fatalf("verdict after the burst: %d %s", code, out)
	}
}

func TestSlowWebhookDoesNotDelayVerdictOrRecalculation(t *testing.T) {
	release := make(chan struct{})
	var arrived sync.Once
	arrivedc := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Do(func() { close(arrivedc) })
		<-release
	}))
	defer receiver.Close()
	ts := startServer(t, testConfig(t, "webhookAllowHosts: [\"127.0.0.1:*\"]\n"))
	ts.call(t, keyT1, "POST", "/tenants/t1/events", events("t1", 30))
	ts.call(t, keyT1, "PUT", "/tenants/t1/risk-config", lowThresholds)
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/alert-rules", map[string]any{"tier": "critical", "channel": "webhook", "url": receiver.URL, "secretName": "hook"}); code != 201 {
		t.Fatalf("%d %s", code, out)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	<-arrivedc // the webhook is now stuck at the receiver
	if code, out := ts.call(t, keyT1, "POST", "/verdict", `{"tenantId": "t1", "agentId": "bad", "method": "tools/call"}`); code != 200 || !strings.Contains(string(out), "critical_risk") {
		t.Errorf("verdict while the webhook hangs: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil); code != 200 {
		t.Errorf("recalculation while the webhook hangs: %d %s", code, out)
	}
	close(release)
}

func TestGracefulShutdownFinishesRecalculation(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	ts.call(t, keyT1, "POST", "/tenants/t1/events", events("t1", 5))
	ts.recalc.lockOf("t1").Lock() // a recalculation of t1 is "running"
	type result struct {
		code int
		body []byte
	}
	resc := make(chan result, 1)
	go func() {
		code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil)
		resc <- result{code, out}
	}()
	// Wait until the request is in flight (blocked on the recalculation lock).
	for ts.recalc.waiting.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ts.cancel()
	ts.cancel = nil
	time.Sleep(50 * time.Millisecond)
	ts.recalc.lockOf("t1").Unlock()
	r := <-resc
	if r.code != 200 || !strings.Contains(string(r.body), `"recalculated":2`) {
		t.Errorf("in-flight recalculation: %d %s", r.code, r.body)
	}
	if err := <-ts.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"no keys", "addr: x\n", "apiKeys"},
		{"short key", "apiKeys: [{name: a, tenant: t, key: short}]\n", "apiKeys/0/key"},
		{"tenant and admin", "apiKeys: [{name: a, tenant: t, admin: true, key: 0123456789abcdefg}]\n", "apiKeys/0"},
		{"env unset", "apiKeys: [{name: a, tenant: t, keyEnv: NOPE}]\n", "server.yaml:1:40: /apiKeys/0/keyEnv: environment variable NOPE is empty or unset"},
		{"bad interval", "recalcInterval: often\napiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\n", "recalcInterval"},
		{"unknown field", "apiKey: []\napiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\n", "apiKey"},
		{"rule url", "webhookAllowHosts: [hooks.example.com]\napiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nsecrets: [{name: s, tenant: t, value: 0123456789abcdefgh}]\nalertRules: [{id: r, tenantId: t, tier: high, channel: webhook, url: 'http://10.0.0.1/', secretName: s}]\n", "/alertRules/0/url: 10.0.0.1:80 is not in webhookAllowHosts"},
		{"rule internal url", "apiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nsecrets: [{name: s, tenant: t, value: 0123456789abcdefgh}]\nalertRules: [{id: r, tenantId: t, tier: high, channel: webhook, url: 'http://169.254.169.254/', secretName: s}]\n", "/alertRules/0/url: 169.254.169.254 is an internal address"},
		{"rule undeclared secret", "apiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nsecrets: [{name: s, tenant: other, value: 0123456789abcdefgh}]\nalertRules: [{id: r, tenantId: t, tier: high, channel: webhook, url: 'https://hooks.example.com/', secretName: s}]\n", "/alertRules/0/secretName: no secret \"s\" is declared for tenant \"t\""},
		{"rule secretEnv", "apiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nalertRules: [{id: r, tenantId: t, tier: high, channel: webhook, url: 'https://hooks.example.com/', secretEnv: LF_ADMIN_KEY}]\n", "secretEnv"},
		{"secret env unset", "apiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nsecrets: [{name: s, tenant: t, valueEnv: NOPE}]\n", "/secrets/0/valueEnv: environment variable NOPE is empty or unset"},
		{"bad role", "apiKeys: [{name: a, tenant: t, role: root, key: 0123456789abcdefg}]\n", "/apiKeys/0/role"},
		{"admin with role", "apiKeys: [{name: a, admin: true, role: viewer, key: 0123456789abcdefg}]\n", "/apiKeys/0/role"},
		{"allow entry", "webhookAllowHosts: ['http://x/']\napiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\n", "/webhookAllowHosts/0"},
		{"smtp password env", "apiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nsmtp: {host: h, from: a@b.c, passwordEnv: NOPE}\n", "/smtp/passwordEnv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, d := LoadConfig("server.yaml", []byte(c.yaml), func(string) string { return "" })
			if !d.HasErrors() {
				t.Fatal("no error")
			}
			var all []string
			for _, x := range d {
				all = append(all, x.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), c.want) {
				t.Errorf("diagnostics %q do not mention %q", all, c.want)
			}
		})
	}
}

// TestVerdictServedFromMemory: once an agent and its tenant's config are
// cached, verdicts do not touch the store (here: a closed one).
func TestVerdictServedFromMemory(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	ts.call(t, keyT1, "PUT", "/tenants/t1/risk-config", lowThresholds)
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true", events("t1", 20)); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	req := `{"tenantId": "t1", "agentId": "bad", "method": "tools/call"}`
	_, first := ts.call(t, keyT1, "POST", "/verdict", req)
	ts.store.Close()
	code, again := ts.call(t, keyT1, "POST", "/verdict", req)
	if code != 200 || string(again) != string(first) || !strings.Contains(string(first), "critical_risk") {
		t.Fatalf("verdict with the store closed: %d %s (before: %s)", code, again, first)
	}
}
