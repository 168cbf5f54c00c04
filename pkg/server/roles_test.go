package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/schemas"
)

// TestRouteTableMatchesOpenAPI: the route table and schemas/openapi.json
// list the same operations, each with the same role, and each operation
// documents the answers its role and body make possible.
func TestRouteTableMatchesOpenAPI(t *testing.T) {
	b, err := schemas.FS.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct {
				Role        string                     `json:"x-lf-role"`
				Responses   map[string]json.RawMessage `json:"responses"`
				RequestBody json.RawMessage            `json:"requestBody"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			pattern := strings.ToUpper(method) + " " + path
			documented[pattern] = true
			need := RoleAdmin
			found := false
			for _, r := range routeTable {
				if r.pattern == pattern {
					need, found = r.role, true
				}
			}
			if !found {
				t.Errorf("openapi.json documents %s, which the server does not route", pattern)
				continue
			}
			if (op.RequestBody != nil) != takesBody[pattern] {
				t.Errorf("%s: requestBody documented %v, the server reads a body %v", pattern, op.RequestBody != nil, takesBody[pattern])
			}
			if op.Role != need.String() {
				t.Errorf("%s: x-lf-role %q, the server needs %q", pattern, op.Role, need)
			}
			want := []string{"307", "431"}
			if need != RoleNone {
				want = append(want, "401", "404", "500")
			}
			if need > RoleViewer {
				want = append(want, "403")
			}
			if op.RequestBody != nil {
				want = append(want, "400", "408", "413", "415")
			}
			for _, code := range want {
				if op.Responses[code] == nil {
					t.Errorf("%s: status %s not documented", pattern, code)
				}
			}
			for code, resp := range op.Responses {
				if code[0] != '2' && !bytes.Contains(resp, []byte(`"#/components/schemas/Error"`)) {
					t.Errorf("%s: status %s has no JSON Error body", pattern, code)
				}
			}
		}
	}
	for _, r := range routeTable {
		if !documented[r.pattern] {
			t.Errorf("route %s is not in openapi.json", r.pattern)
		}
	}
}

// roleCase is one request of TestRolesPerEndpoint, on tenant t1.
type roleCase struct{ pattern, path, body string }

var roleCases = []roleCase{
	{"POST /verdict", "/verdict", `{"tenantId": "t1", "agentId": "bad", "method": "tools/call"}`},
	{"GET /tenants/{tenantId}/agents", "/tenants/t1/agents", ""},
	{"GET /tenants/{tenantId}/agents/{agentId}/risk", "/tenants/t1/agents/bad/risk", ""},
	{"POST /tenants/{tenantId}/risk/recalculate", "/tenants/t1/risk/recalculate", ""},
	{"POST /tenants/{tenantId}/agents/{agentId}/risk/recalculate", "/tenants/t1/agents/bad/risk/recalculate", ""},
	{"GET /tenants/{tenantId}/agents/{agentId}/baseline", "/tenants/t1/agents/bad/baseline", ""},
	{"DELETE /tenants/{tenantId}/agents/{agentId}/baseline", "/tenants/t1/agents/bad/baseline", ""},
	{"POST /tenants/{tenantId}/agents/{agentId}/release", "/tenants/t1/agents/bad/release", ""},
	{"GET /tenants/{tenantId}/risk-config", "/tenants/t1/risk-config", ""},
	{"PUT /tenants/{tenantId}/risk-config", "/tenants/t1/risk-config", `{"enabled": false}`},
	{"POST /tenants/{tenantId}/events", "/tenants/t1/events", ""}, // body filled in below
	{"GET /tenants/{tenantId}/alert-rules", "/tenants/t1/alert-rules", ""},
	{"POST /tenants/{tenantId}/alert-rules", "/tenants/t1/alert-rules", `{"id": "r", "threshold": 99, "channel": "email", "to": ["a@example.com"]}`},
	{"DELETE /tenants/{tenantId}/alert-rules/{ruleId}", "/tenants/t1/alert-rules/r", ""},
	{"GET /tenants/{tenantId}/alert-deliveries", "/tenants/t1/alert-deliveries", ""},
	{"GET /report", "/report", ""},
	{"GET /tenants/{tenantId}/report", "/tenants/t1/report", ""},
	{"POST /v1/traces", "/v1/traces", `{"resourceSpans": []}`},
	{"GET /tenants/{tenantId}/leaks", "/tenants/t1/leaks", ""},
}

// TestRolesPerEndpoint: on every endpoint a key of t1 without the route's
// role gets 403, a key with it does not; a key of another tenant gets 404
// whatever its role (isolation before roles); a key without a role is a
// viewer; the global admin may do everything.
func TestRolesPerEndpoint(t *testing.T) {
	oa := loadOpenAPI(t)
	ts := startServer(t, testConfig(t, ""))
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true", events("t1", 10)); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	keys := []struct {
		key  string
		role Role
	}{{keyT1View, RoleViewer}, {keyT1NoRole, RoleViewer}, {keyT1Op, RoleOperator}, {keyT1, RoleAdmin}, {keyAdmin, RoleAdmin}}
	covered := map[string]bool{}
	for _, c := range roleCases {
		covered[c.pattern] = true
		method, tmpl, _ := strings.Cut(c.pattern, " ")
		need := roleOf(c.pattern)
		for _, k := range keys {
			body := c.body
			if strings.HasSuffix(c.path, "/events") {
				body = events("t1", 1)
			}
			var b any
			if body != "" {
				b = body
			}
			code, out := ts.call(t, k.key, method, c.path, b)
			switch {
			case k.role < need && code != http.StatusForbidden:
				t.Errorf("%s with a %s key: %d, want 403: %s", c.pattern, k.role, code, out)
			case k.role >= need && (code == http.StatusForbidden || code >= 500):
				t.Errorf("%s with a %s key: %d: %s", c.pattern, k.role, code, out)
			}
			if code == http.StatusForbidden {
				oa.check(t, method, tmpl, code, out)
			}
		}
		// Another tenant's key, even an admin, gets 404 (not 403) on t1.
		if c.path == "/report" || c.path == "/v1/traces" { // no tenant in the path (otlp_test.go checks /v1/traces)
			continue
		}
		body := c.body
		if strings.HasSuffix(c.path, "/events") {
			body = events("t1", 1)
		}
		var b any
		if body != "" {
			b = body
		}
		if code, out := ts.call(t, keyT2, method, c.path, b); code != http.StatusNotFound {
			t.Errorf("%s with t2's admin key: %d, want 404: %s", c.pattern, code, out)
		}
	}
	for _, r := range routeTable {
		if r.role != RoleNone && !covered[r.pattern] {
			t.Errorf("route %s has no role case", r.pattern)
		}
	}
	// A t1 viewer asking a verdict of t2 learns nothing about t2: 404 first.
	if code, out := ts.call(t, keyT1View, "POST", "/verdict", `{"tenantId": "t2", "agentId": "a", "method": "m"}`); code != http.StatusNotFound {
		t.Errorf("viewer verdict on another tenant: %d %s", code, out)
	}
	// S3: what lifts enforcement is the tenant admin's alone, whatever the
	// route table says.
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/tenants/t1/agents/bad/release", ""},
		{"DELETE", "/tenants/t1/agents/bad/baseline", ""},
		{"PUT", "/tenants/t1/risk-config", `{"enabled": false}`},
		{"POST", "/tenants/t1/alert-rules", `{"threshold": 1, "channel": "email", "to": ["a@example.com"]}`},
	} {
		var b any
		if c.body != "" {
			b = c.body
		}
		if code, out := ts.call(t, keyT1Op, c.method, c.path, b); code != http.StatusForbidden {
			t.Errorf("operator key: %s %s: %d, want 403: %s", c.method, c.path, code, out)
		}
	}
	// What a viewer may not do did not happen: enforcement is still off.
	if code, out := ts.call(t, keyT1View, "PUT", "/tenants/t1/risk-config", `{"enabled": true}`); code != http.StatusForbidden {
		t.Errorf("viewer enforcement switch: %d %s", code, out)
	}
}

// TestServeLogsRoles: lf serve says at start-up which key has which role,
// marks keys that took the default, and never prints a key.
func TestServeLogsRoles(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir()+"/lf.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A rule stored by an earlier version, with secretEnv: lf serve warns.
	if err := st.Update(ctx, func(tx store.Tx) error {
		return tx.PutAlertRule(ctx, "t1", "old", `{"id":"old","tenantId":"t1","tier":"high","channel":"webhook","url":"https://hooks.example.com/","secretEnv":"LF_ADMIN_KEY"}`, time.Now())
	}); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	s, err := New(ctx, testConfig(t, ""), st, &log)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(sctx, ln, time.Second) }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "will not deliver") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	out := log.String()
	for _, want := range []string{
		`key "t1-admin": tenant t1, role admin`,
		`key "t1-gateway": tenant t1, role operator`,
		`key "t1-viewer": tenant t1, role viewer`,
		`key "t1-norole": tenant t1, role viewer (no role set: the least role)`,
		`key "ops": global admin`,
		`alert rule "old" of tenant t1 will not deliver: /secretName: a webhook rule needs secretName`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("start-up log lacks %q:\n%s", want, out)
		}
	}
	for _, k := range []string{keyT1, keyT2, keyAdmin, keyT1View, keyT1Op, keyT1NoRole, "whsec"} {
		if strings.Contains(out, k) {
			t.Errorf("the log prints a key or secret %q", k)
		}
	}
}

func TestKeySummarySorted(t *testing.T) {
	got := keySummary([]Key{{Name: "b", Tenant: "t", Role: RoleOperator}, {Name: "a", Admin: true, Role: RoleAdmin}})
	if !sort.StringsAreSorted(got) || len(got) != 2 {
		t.Errorf("%q", got)
	}
}
