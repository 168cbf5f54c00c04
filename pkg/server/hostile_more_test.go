package server

// The hostile-tenant suite, second part: what a tenant key could still do
// after the first hardening. Scoring at another time to lift a block,
// idle connections holding every slot, a tenant report showing store-wide
// data, and the smaller findings (limits that overflow, ranges the
// outbound policy missed, shared secrets, the asterisk request target,
// invalid UTF-8 folded into another id, 404 for a wrong method).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/schemas"
)

// verdictOf asks for a verdict and returns its action.
func verdictOf(t *testing.T, ts *testServer, key, tenant, agent string) string {
	t.Helper()
	code, out := ts.call(t, key, "POST", "/verdict", VerdictRequest{TenantID: tenant, AgentID: agent, Method: "tools/call"})
	var v VerdictResponse
	if code != http.StatusOK || json.Unmarshal(out, &v) != nil {
		t.Fatalf("verdict: %d %s", code, out)
	}
	return v.Action
}

// TestHostileScoreAtAnotherTime: scoring in the future (or back and forth)
// neither lifts a critical block nor fires the alert rules again. An
// operator key cannot score at another time at all; an admin key gets a
// what-if that stores nothing.
func TestHostileScoreAtAnotherTime(t *testing.T) {
	t.Parallel() // mostly waits: runs beside the other tests
	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hits.Add(1)
	}))
	defer receiver.Close()
	ts := startServer(t, testConfig(t, "webhookAllowHosts: [\"127.0.0.1:*\"]\n"))
	if code, out := ts.call(t, keyT1, "PUT", "/tenants/t1/risk-config", lowThresholds); code != 200 {
		t.Fatalf("risk config: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/alert-rules", map[string]any{"id": "crit", "tier": "critical", "channel": "webhook", "url": receiver.URL, "secretName": "hook"}); code != 201 {
		t.Fatalf("rule: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events?recalculate=true", events("t1", 40)); code != 200 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	if a := verdictOf(t, ts, keyT1Op, "t1", "bad"); a != agentrisk.ActionBlock {
		t.Fatalf("the misbehaving agent is not blocked: %s", a)
	}
	deadline := time.Now().Add(10 * time.Second)
	for hits.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if hits.Load() != 1 {
		t.Fatalf("%d webhooks for the first crossing, want 1", hits.Load())
	}

	future := "at=2199-01-01T00:00:00Z"
	for _, p := range []string{"/tenants/t1/agents/bad/risk/recalculate?" + future, "/tenants/t1/risk/recalculate?" + future} {
		if code, out := ts.call(t, keyT1Op, "POST", p, nil); code != http.StatusForbidden || !strings.Contains(string(out), `"field":"at"`) {
			t.Errorf("operator POST %s: %d %s, want 403 naming at", p, code, out)
		}
	}
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events?recalculate=true&"+future, events("t1", 2)); code != http.StatusBadRequest {
		t.Errorf("operator events with a future at: %d %s, want 400", code, out)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true&"+future, events("t1", 2)); code != http.StatusBadRequest {
		t.Errorf("admin events with a future at: %d %s, want 400", code, out)
	}
	if a := verdictOf(t, ts, keyT1Op, "t1", "bad"); a != agentrisk.ActionBlock {
		t.Fatalf("a score at another time lifted the block: %s", a)
	}

	// An admin's what-if, back and forth: answered, stored nowhere.
	for i := range 3 {
		code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate?"+future, nil)
		var res RecalcResponse
		if code != 200 || json.Unmarshal(out, &res) != nil || !res.WhatIf || res.Recalculated == 0 {
			t.Fatalf("admin what-if %d: %d %s", i, code, out)
		}
		for _, c := range res.Changes {
			if c.AgentID == "bad" && (c.NewTier == agentrisk.TierCritical || c.OldTier != agentrisk.TierCritical) {
				t.Errorf("what-if change of bad: %s -> %s, want critical -> lower", c.OldTier, c.NewTier)
			}
		}
		if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/risk/recalculate", nil); code != 200 {
			t.Fatalf("recalculate now: %d %s", code, out)
		}
	}
	if a := verdictOf(t, ts, keyT1Op, "t1", "bad"); a != agentrisk.ActionBlock {
		t.Errorf("after what-ifs the verdict is %s, want block", a)
	}
	code, out := ts.call(t, keyT1View, "GET", "/tenants/t1/agents/bad/risk", nil)
	if code != 200 || strings.Contains(string(out), "2199") {
		t.Errorf("stored score after what-ifs: %d %.300s", code, out)
	}
	time.Sleep(500 * time.Millisecond)
	if hits.Load() != 1 {
		t.Errorf("%d webhooks after scoring back and forth, want still 1", hits.Load())
	}
	// Near the score time, a recalculation is an operator's.
	near := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/risk/recalculate?at="+near, nil); code != 200 || strings.Contains(string(out), "whatIf") {
		t.Errorf("operator recalculation a minute ago: %d %.200s", code, out)
	}
}

// TestHostileIdleConnectionsDoNotStarve: with every slot held by an idle
// keep-alive connection, a new client still gets its verdict at once.
func TestHostileIdleConnectionsDoNotStarve(t *testing.T) {
	t.Parallel() // mostly waits: runs beside the other tests
	ts := startServer(t, testConfig(t, "maxConnections: 8\n"))
	addr := strings.TrimPrefix(ts.base, "http://")
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 8 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz on an idle-to-be connection: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cl := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 3 {
		req, _ := http.NewRequest("POST", ts.base+"/verdict", strings.NewReader(`{"tenantId":"t1","agentId":"a","method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+keyT1Op)
		start := time.Now()
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatalf("verdict %d with every slot held by an idle connection: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("verdict %d: %d", i, resp.StatusCode)
		}
		t.Logf("verdict %d answered in %s", i, time.Since(start).Round(time.Millisecond))
	}
}

// TestHostileTenantReportOwnDataOnly: a tenant's report shows none of the
// store's risk scorers or AgentLeak runs; a global admin's store report
// still does.
func TestHostileTenantReportOwnDataOnly(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	root := "testdata"
	b, d, err := project.LoadEntities(root, []string{filepath.Join(root, "storewide.yaml")}, nil, nil)
	if err != nil || d.HasErrors() {
		t.Fatalf("load: %v %v", err, d)
	}
	if _, err := project.Upsert(context.Background(), ts.store, b); err != nil {
		t.Fatal(err)
	}
	ts.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true", events("t1", 5))
	for _, p := range []string{"/report", "/tenants/t1/report"} {
		code, out := ts.call(t, keyT1View, "GET", p, nil)
		page := string(out)
		if code != 200 || !strings.Contains(page, "t1/") {
			t.Fatalf("GET %s: %d %.300s", p, code, page)
		}
		for _, leak := range []string{"storewide_scorer_not_for_tenants", "Risk scorers", "AgentLeak"} {
			if strings.Contains(page, leak) {
				t.Errorf("GET %s by a tenant key shows %q", p, leak)
			}
		}
	}
	code, out := ts.call(t, keyAdmin, "GET", "/report", nil)
	if code != 200 || !strings.Contains(string(out), "storewide_scorer_not_for_tenants") {
		t.Errorf("the global admin's store report lost the scorers: %d", code)
	}
}

// TestHostileRiskConfigBounds: a rate limit near the int range no longer
// overflows (every verdict after the first blocked), and the grace period
// and decay half-life have bounds, each refused with its field.
func TestHostileRiskConfigBounds(t *testing.T) {
	if n := agentrisk.EffectiveLimit(math.MaxInt, 1); n < 1<<30 {
		t.Errorf("EffectiveLimit(MaxInt, 1) = %d", n)
	}
	if n := agentrisk.EffectiveLimit(math.MaxInt, 0.25); n < 1<<30 {
		t.Errorf("EffectiveLimit(MaxInt, 0.25) = %d", n)
	}
	ts := startServer(t, testConfig(t, ""))
	for _, c := range []struct{ body, field string }{
		{`{"rateLimit": {"limit": 9223372036854775807, "windowSeconds": 60}}`, "/rateLimit/limit"},
		{`{"rateLimit": {"limit": 10, "windowSeconds": 9223372036854775807}}`, "/rateLimit/windowSeconds"},
		{`{"gracePeriodSeconds": 9223372036854775807}`, "/gracePeriodSeconds"},
		{`{"gracePeriodSeconds": 86401}`, "/gracePeriodSeconds"},
		{`{"decayHalfLifeHours": 1e-300}`, "/decayHalfLifeHours"},
		{`{"decayHalfLifeHours": 169}`, "/decayHalfLifeHours"},
	} {
		code, out := ts.call(t, keyT1, "PUT", "/tenants/t1/risk-config", c.body)
		var e ErrorBody
		json.Unmarshal(out, &e)
		if code != http.StatusBadRequest || e.Field != c.field {
			t.Errorf("%s: %d field %q, want 400 naming %s: %s", c.body, code, e.Field, c.field, out)
		}
	}
	// The largest accepted limit does not block.
	if code, out := ts.call(t, keyT1, "PUT", "/tenants/t1/risk-config", `{"enabled": true, "rateLimit": {"limit": 1000000000, "windowSeconds": 60}}`); code != 200 {
		t.Fatalf("largest limit: %d %s", code, out)
	}
	for i := range 3 {
		if a := verdictOf(t, ts, keyT1Op, "t1", "x"); a != agentrisk.ActionAllow {
			t.Errorf("verdict %d under the largest limit: %s", i, a)
		}
	}
}

// TestHostileOutboundSpecialRanges: the documentation ranges and IPv4
// addresses embedded in IPv6 are internal for webhooks.
func TestHostileOutboundSpecialRanges(t *testing.T) {
	for addr, want := range map[string]bool{
		"192.0.2.1": true, "198.51.100.7": true, "203.0.113.200": true,
		"2002:7f00:1::1": true, "2002:a00:1::": true, "2002:a9fe:a9fe::1": true, // 6to4 of 127.0.0.1, 10.0.0.1, 169.254.169.254
		"::7f00:1": true, "::a00:1": true, "::808:808": true, // IPv4-compatible, whatever it carries
		"::ffff:0:7f00:1": true, "::ffff:a9fe:a9fe": true, // IPv4-translated and IPv4-mapped
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": true,  // Teredo
		"2002:808:808::1":                      false, // 6to4 of a public address
		"8.8.8.8":                              false, "2606:4700::1111": false,
	} {
		if got := alerts.Internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Internal(%s) = %v, want %v", addr, got, want)
		}
	}
	ts := startServer(t, testConfig(t, ""))
	for _, u := range []string{"http://192.0.2.10/h", "https://198.51.100.1/h", "http://203.0.113.9:8080/h", "http://[2002:7f00:1::1]/h", "http://[::7f00:1]/h", "http://[::ffff:0:7f00:1]/h"} {
		code, out := ts.call(t, keyT1, "POST", "/tenants/t1/alert-rules", map[string]any{"id": "r", "tier": "critical", "channel": "webhook", "url": u, "secretName": "hook"})
		if code != http.StatusBadRequest || !strings.Contains(string(out), "/url") {
			t.Errorf("rule to %s: %d %s, want 400 naming /url", u, code, out)
		}
	}
}

// TestHostileSharedSecretWarning: two tenants with the same signing secret
// value get a warning at start-up (naming the secrets, never the value);
// the example config has none.
func TestHostileSharedSecretWarning(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Secrets["t2"]["copy"] = cfg.Secrets["t1"]["hook"]
	var log lockedLog
	s := newServer(t, cfg)
	s.log = &log
	s.logKeys()
	if !strings.Contains(log.String(), `secret "hook" of tenant t1 and secret "copy" of tenant t2 have the same value`) || strings.Contains(log.String(), "whsec") {
		t.Errorf("start-up log:\n%s", log.String())
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "server", "server.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ex, d := LoadConfig("examples/server/server.yaml", data, exampleEnv)
	if d.HasErrors() {
		t.Fatal(d)
	}
	if l := sharedSecrets(ex.Secrets); len(l) > 0 {
		t.Errorf("the example config shares a secret between tenants: %v", l)
	}
}

// lockedLog is a log a server may write from several goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHostileOpenAPIUnavailable: every operation that reads the store
// documents 503 with Retry-After.
func TestHostileOpenAPIUnavailable(t *testing.T) {
	b, err := schemas.FS.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Responses map[string]struct {
				Headers map[string]any
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				Responses map[string]struct {
					Ref     string `json:"$ref"`
					Headers map[string]any
				}
				Role string `json:"x-lf-role"`
			}
			if method == "parameters" || json.Unmarshal(raw, &op) != nil || op.Role == "public" {
				continue
			}
			r, ok := op.Responses["503"]
			if ok && r.Ref != "" {
				r.Headers = doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")].Headers
			}
			if !ok || r.Headers["Retry-After"] == nil {
				t.Errorf("%s %s: no 503 with Retry-After", strings.ToUpper(method), path)
			}
		}
	}
}

// rawRequest sends one request as written and returns the answer.
func rawRequest(t *testing.T, base, req string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, req)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// TestHostileAsteriskTarget: OPTIONS * answers what the server allows;
// another method with * is a 400 with a JSON body.
func TestHostileAsteriskTarget(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	resp, body := rawRequest(t, ts.base, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Allow"), "GET") || !json.Valid(body) || len(body) == 0 {
		t.Errorf("OPTIONS *: %d Allow %q body %q", resp.StatusCode, resp.Header.Get("Allow"), body)
	}
	for _, m := range []string{"GET", "POST", "DELETE"} {
		resp, body := rawRequest(t, ts.base, m+" * HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
		var e ErrorBody
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("%s *: %d %q", m, resp.StatusCode, body)
		}
	}
}

// TestHostileInvalidUTF8IDs: an id with invalid UTF-8 is refused, not
// folded into U+FFFD (which would make "a\xffb" and "a\xfeb" one agent).
func TestHostileInvalidUTF8IDs(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	now := time.Now().UTC().Format(time.RFC3339)
	for _, c := range []struct{ key, method, path, body, field string }{
		{keyT1Op, "POST", "/verdict", "{\"tenantId\":\"t1\",\"agentId\":\"a\xffb\",\"method\":\"ping\"}", "/agentId"},
		{keyT1Op, "POST", "/verdict", "{\"tenantId\":\"t1\",\"agentId\":\"a\\udc00b\",\"method\":\"ping\"}", "/agentId"},
		{keyT1Op, "POST", "/tenants/t1/events", "{\"timestamp\":\"" + now + "\",\"agent_id\":\"a\xfeb\",\"session_id\":\"s\",\"method\":\"tools/call\"}\n", "/0/agent_id"},
		{keyT1, "POST", "/tenants/t1/alert-rules", "{\"id\":\"r\xc0\",\"tier\":\"critical\",\"channel\":\"email\",\"to\":[\"a@example.com\"]}", "/id"},
		{keyT1Op, "GET", "/tenants/t1/agents/a%FFb/risk", "", "agentId"},
	} {
		code, out := ts.call(t, c.key, c.method, c.path, c.body)
		var e ErrorBody
		json.Unmarshal(out, &e)
		if code != http.StatusBadRequest || e.Field != c.field {
			t.Errorf("%s %s %q: %d field %q, want 400 naming %s: %s", c.method, c.path, c.body, code, e.Field, c.field, out)
		}
	}
	if code, out := ts.call(t, keyT1View, "GET", "/tenants/t1/agents", nil); code == 200 && strings.Contains(string(out), "\ufffd") {
		t.Errorf("an agent with U+FFFD was stored: %s", out)
	}
}

// TestHostileMethodNotAllowed: a wrong method on an existing path is a 405
// naming the allowed ones (Allow header), not a 404.
func TestHostileMethodNotAllowed(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	for _, c := range []struct{ key, method, path, allow string }{
		{keyT1, "PUT", "/tenants/t1/agents", "GET, HEAD"},
		{keyT1, "DELETE", "/verdict", "POST"},
		{keyT1, "PATCH", "/tenants/t1/risk-config", "GET, PUT, HEAD"},
		{keyT1, "GET", "/tenants/t1/alert-rules/r1", "DELETE"},
		{"", "POST", "/healthz", "GET, HEAD"},
		{"", "DELETE", "/openapi.json", "GET, HEAD"},
	} {
		req, _ := http.NewRequest(c.method, ts.base+c.path, nil)
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e ErrorBody
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != c.allow || json.Unmarshal(body, &e) != nil {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %q: %s", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), c.allow, body)
		}
	}
	if code, _ := ts.call(t, keyT1, "GET", "/tenants/t1/nothing-here", nil); code != http.StatusNotFound {
		t.Errorf("unknown path: %d, want 404", code)
	}
}
