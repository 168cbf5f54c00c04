package server

// The hostile-tenant suite: cardinality. Per-tenant limits on agents and
// alert rules, paged agent lists, and recalculations that do not make one
// tenant wait for another's.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
)

// agentEvents returns NDJSON with one event of tenant for each of n agents
// named prefix0, prefix1, ...
func agentEvents(tenant, prefix string, n int) string {
	var b strings.Builder
	ts := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	for i := range n {
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":%q,"agent_id":"%s%d","session_id":"s","method":"tools/call","tool":"read_file"}`+"\n", ts, tenant, prefix, i)
	}
	return b.String()
}

// TestHostileAgentLimit: an ingest that would take a tenant past
// limits.maxAgentsPerTenant is refused whole (409 naming the first event
// over it); events of agents the tenant has pass.
func TestHostileAgentLimit(t *testing.T) {
	ts := startServer(t, testConfig(t, "limits: {maxAgentsPerTenant: 5}\n"))
	code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events", agentEvents("t1", "a", 7))
	var e ErrorBody
	json.Unmarshal(out, &e)
	if code != http.StatusConflict || e.Field != "/5/agent_id" {
		t.Fatalf("7 agents against a limit of 5: %d %s", code, out)
	}
	if n, _ := ts.store.CountAgents(context.Background(), "t1"); n != 0 {
		t.Errorf("a refused ingest stored %d agents", n)
	}
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events", agentEvents("t1", "a", 5)); code != 200 {
		t.Fatalf("5 agents: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events", agentEvents("t1", "b", 1)); code != http.StatusConflict {
		t.Errorf("a sixth agent: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events", agentEvents("t1", "a", 5)+agentEvents("t1", "a", 3)); code != 200 {
		t.Errorf("more events of the same agents: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT2, "POST", "/tenants/t2/events", agentEvents("t2", "a", 5)); code != 200 {
		t.Errorf("another tenant's agents count apart: %d %s", code, out)
	}
}

// TestHostileAlertRuleLimit: a tenant cannot hold more than
// limits.maxAlertRulesPerTenant rules; replacing one is allowed.
func TestHostileAlertRuleLimit(t *testing.T) {
	ts := startServer(t, testConfig(t, "limits: {maxAlertRulesPerTenant: 3}\n"))
	rule := func(id string) map[string]any {
		return map[string]any{"id": id, "tier": "critical", "channel": "email", "to": []string{"oncall@example.com"}}
	}
	for i := range 3 {
		if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/alert-rules", rule(fmt.Sprint("r", i))); code != 201 {
			t.Fatalf("rule %d: %d %s", i, code, out)
		}
	}
	code, out := ts.call(t, keyT1, "POST", "/tenants/t1/alert-rules", rule("r3"))
	var e ErrorBody
	json.Unmarshal(out, &e)
	if code != http.StatusConflict || e.Field != "/id" {
		t.Errorf("a fourth rule: %d %s, want 409", code, out)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/alert-rules", rule("r1")); code != 201 {
		t.Errorf("replacing a rule at the limit: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT2, "POST", "/tenants/t2/alert-rules", rule("r0")); code != 201 {
		t.Errorf("another tenant's rule: %d %s", code, out)
	}
}

// TestHostileAgentsPaged: GET .../agents pages with limit and cursor, in
// the list's order, each agent once; the next page is in Link.
func TestHostileAgentsPaged(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	if code, out := ts.call(t, keyT1Op, "POST", "/tenants/t1/events?recalculate=true", agentEvents("t1", "a", 23)+events("t1", 20)); code != 200 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	_, out := ts.call(t, keyT1View, "GET", "/tenants/t1/agents", nil)
	var all []agentrisk.AgentSummary
	if err := json.Unmarshal(out, &all); err != nil || len(all) != 25 {
		t.Fatalf("unpaged: %v, %d agents", err, len(all))
	}
	var got []agentrisk.AgentSummary
	path := "/tenants/t1/agents?limit=10"
	for pages := 0; path != ""; pages++ {
		if pages > 3 {
			t.Fatal("more than 3 pages of 10 for 25 agents")
		}
		req, _ := http.NewRequest("GET", ts.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+keyT1View)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var pg []agentrisk.AgentSummary
		if err := json.NewDecoder(resp.Body).Decode(&pg); err != nil || resp.StatusCode != 200 || len(pg) > 10 {
			t.Fatalf("GET %s: %d %v (%d agents)", path, resp.StatusCode, err, len(pg))
		}
		resp.Body.Close()
		got = append(got, pg...)
		path = ""
		if l := resp.Header.Get("Link"); l != "" {
			path = strings.TrimSuffix(strings.TrimPrefix(l, "<"), `>; rel="next"`)
		}
	}
	if len(got) != len(all) {
		t.Fatalf("pages hold %d agents, the list %d", len(got), len(all))
	}
	for i := range all {
		if got[i].AgentID != all[i].AgentID {
			t.Errorf("agent %d: paged %s, listed %s", i, got[i].AgentID, all[i].AgentID)
		}
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "cursor=@@", "cursor=eA"} {
		if code, out := ts.call(t, keyT1View, "GET", "/tenants/t1/agents?"+q, nil); code != http.StatusBadRequest {
			t.Errorf("?%s: %d %s", q, code, out)
		}
	}
}

// TestHostileRecalculationFairBetweenTenants: while one tenant's large
// recalculation runs, another tenant's small one is not held up by it.
func TestHostileRecalculationFairBetweenTenants(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 5,000 agents")
	}
	ctx := context.Background()
	ts := startServer(t, testConfig(t, "limits: {maxAgentsPerTenant: 100000}\n"))
	big := make([]agentrisk.Event, 0, 5000)
	at := time.Now().UTC().Add(-time.Hour)
	for i := range cap(big) {
		big = append(big, agentrisk.Event{Timestamp: at, TenantID: "t1", AgentID: fmt.Sprint("agent-", i), SessionID: "s", Method: "tools/call", Tool: "read_file"})
	}
	if _, err := ts.engine.Ingest(ctx, big); err != nil {
		t.Fatal(err)
	}
	if code, out := ts.call(t, keyT2, "POST", "/tenants/t2/events", events("t2", 5)); code != 200 {
		t.Fatalf("t2 ingest: %d %s", code, out)
	}
	bigDone := make(chan time.Duration, 1)
	start := time.Now()
	go func() {
		ts.call(t, keyT1Op, "POST", "/tenants/t1/risk/recalculate", nil)
		bigDone <- time.Since(start)
	}()
	for ts.recalc.running.Load() == 0 && time.Since(start) < 10*time.Second {
		time.Sleep(time.Millisecond)
	}
	smallStart := time.Now()
	code, out := ts.call(t, keyT2, "POST", "/tenants/t2/risk/recalculate", nil)
	small := time.Since(smallStart)
	if code != 200 {
		t.Fatalf("t2 recalculation: %d %s", code, out)
	}
	select {
	case d := <-bigDone:
		if small > d/2 {
			t.Errorf("t2's recalculation took %s while t1's (5,000 agents) took %s: it waited for t1", small, d)
		}
		t.Logf("t1 (5,000 agents) %s, t2 (2 agents) %s", d, small)
	default:
		t.Logf("t2 (2 agents) answered in %s while t1's recalculation (5,000 agents) still runs; it took %s", small, <-bigDone)
	}
}

// TestHostileAlertFairness: one tenant whose 300 rules fire at once
// against a target that hangs neither fills the delivery queue for the
// others nor holds their alerts back: another tenant's critical alert is
// delivered within seconds, and nothing is recorded as failed for it.
func TestHostileAlertFairness(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(3 * time.Second):
		}
	}))
	defer slow.Close()
	defer close(release) // first: Close waits for the hanging requests
	got := make(chan string, 10)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("X-LF-Alert-Id")
	}))
	defer fast.Close()
	cfg := testConfig(t, "webhookAllowHosts: [\"127.0.0.1:*\"]\n")
	cfg.Alerts.QueueSize, cfg.Alerts.MaxAttempts, cfg.Alerts.Client = 16, 1, alerts.NewWebhookClient(2*time.Second)
	ts := startServer(t, cfg)
	for i := range 300 {
		r := alerts.Rule{ID: fmt.Sprint("flood-", i), TenantID: "t1", Tier: "critical", Channel: alerts.ChannelWebhook, URL: slow.URL, SecretName: "hook"}
		if err := alerts.PutRule(ctx, ts.store, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := alerts.PutRule(ctx, ts.store, alerts.Rule{ID: "crit", TenantID: "t2", Tier: "critical", Channel: alerts.ChannelWebhook, URL: fast.URL, SecretName: "hook"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, tenant string }{{keyT1, "t1"}, {keyT2, "t2"}} {
		if code, out := ts.call(t, c.key, "PUT", "/tenants/"+c.tenant+"/risk-config", lowThresholds); code != 200 {
			t.Fatalf("risk config: %d %s", code, out)
		}
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true", events("t1", 40)); code != 200 {
		t.Fatalf("t1: %d %s", code, out)
	}
	start := time.Now()
	if code, out := ts.call(t, keyT2, "POST", "/tenants/t2/events?recalculate=true", events("t2", 40)); code != 200 {
		t.Fatalf("t2: %d %s", code, out)
	}
	select {
	case id := <-got:
		t.Logf("t2's alert %s delivered %s after it fired, behind t1's 300", id, time.Since(start).Round(time.Millisecond))
	case <-time.After(3 * time.Second):
		t.Errorf("t2's critical alert not delivered within 3 s of firing, behind t1's 300 alerts")
	}
	ds, err := alerts.ListDeliveries(ctx, ts.store, "t2", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Status == alerts.StatusFailed {
			t.Errorf("t2's alert recorded as failed: %+v", d)
		}
	}
	if ds, _ := alerts.ListDeliveries(ctx, ts.store, "t1", 0); len(ds) > 0 && strings.Contains(ds[len(ds)-1].Error, "queue is full") {
		t.Errorf("t1's alerts beyond the queue were failed instead of waiting: %+v", ds[len(ds)-1])
	}
}
