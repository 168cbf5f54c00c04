package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/alerts"
)

// TestDemoEventsTurnCritical walks the README flow on the demo project's
// events: risk config, ingest with recalculation at the events' time, scores,
// and a signed webhook when an agent turns critical.
func TestDemoEventsTurnCritical(t *testing.T) {
	root := filepath.Join("..", "..")
	events, err := os.ReadFile(filepath.Join(root, "project", "agents", "events.jsonl"))
	if err != nil {
		t.Skipf("demo events not found: %v", err)
	}
	cfgBody, err := os.ReadFile(filepath.Join(root, "examples", "agents", "risk-config.json"))
	if err != nil {
		t.Skipf("example risk config not found: %v", err)
	}
	var acme bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(events))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"tenant_id":"acme"`) {
			acme.Write(sc.Bytes())
			acme.WriteByte('\n')
		}
	}
	got := make(chan *http.Request, 10)
	bodies := make(chan []byte, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer receiver.Close()
	ts := startServer(t, testConfig(t, "webhookAllowHosts: [\"127.0.0.1:*\"]\nscoreTime: 2026-04-16T14:00:00Z\n"))
	if code, out := ts.call(t, keyAdmin, "PUT", "/tenants/acme/risk-config", cfgBody); code != 200 {
		t.Fatalf("risk config: %d %s", code, out)
	}
	// The demo events belong to tenant acme: the admin key acts on it.
	if code, out := ts.call(t, keyAdmin, "POST", "/tenants/acme/alert-rules", map[string]any{"id": "crit", "tier": "critical", "channel": "webhook", "url": receiver.URL, "secretName": "demo"}); code != 201 {
		t.Fatalf("rule: %d %s", code, out)
	}
	code, out := ts.call(t, keyAdmin, "POST", "/tenants/acme/events?recalculate=true", acme.Bytes())
	if code != 200 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	code, out = ts.call(t, keyAdmin, "GET", "/tenants/acme/agents", nil)
	var list []struct{ AgentID, RiskTier string }
	json.Unmarshal(out, &list)
	if code != 200 || len(list) == 0 || list[0].RiskTier != "critical" {
		t.Fatalf("agents: %d %s", code, out)
	}
	select {
	case r := <-got:
		b := <-bodies
		if !alerts.Verify("demo-secret-0123456789", r.Header.Get(alerts.TimestampHeader), b, r.Header.Get(alerts.SignatureHeader)) {
			t.Error("webhook signature does not verify")
		}
		if !strings.Contains(string(b), `"agentId":"`+list[0].AgentID+`"`) || !strings.Contains(string(b), `"newTier":"critical"`) {
			t.Errorf("webhook body: %s", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook within 10 s")
	}
	// The critical agent is blocked.
	_, out = ts.call(t, keyAdmin, "POST", "/verdict", VerdictRequest{TenantID: "acme", AgentID: list[0].AgentID, Method: "tools/call"})
	if !strings.Contains(string(out), `"reason":"critical_risk"`) {
		t.Errorf("verdict: %s", out)
	}
}
