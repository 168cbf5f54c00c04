package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestOpenAPIErrorAnswersLive extends the OpenAPI-vs-live checks to the
// answers of the hardening: every status below is produced by a live
// request and its body validated against the operation's documented
// response in schemas/openapi.json.
func TestOpenAPIErrorAnswersLive(t *testing.T) {
	t.Parallel() // its server's shutdown waits about 0.5 s for a closing connection
	oa := loadOpenAPI(t)
	ts := startServer(t, testConfig(t, ""))
	raw := func(method, path, key, ctype string, body string, hdr map[string]string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.base+path, strings.NewReader(body))
		if body == "" {
			req.Body = nil
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	cases := []struct {
		name, method, path, tmpl, key, ctype, body string
		hdr                                        map[string]string
		want                                       int
	}{
		{"307 unclean path", "GET", "/tenants/t1//agents", "/tenants/{tenantId}/agents", keyT1, "", "", nil, 307},
		{"307 public", "GET", "//healthz", "/healthz", "", "", "", nil, 307},
		{"400 path id", "GET", "/tenants/t1/agents/" + strings.Repeat("a", 300) + "/risk", "/tenants/{tenantId}/agents/{agentId}/risk", keyT1, "", "", nil, 400},
		{"400 deep body", "PUT", "/tenants/t1/risk-config", "/tenants/{tenantId}/risk-config", keyT1, "", strings.Repeat("[", 1000), nil, 400},
		{"400 case-folded key", "POST", "/verdict", "/verdict", keyT1Op, "", `{"tenantId": "t1", "TenantId": "t2"}`, nil, 400},
		{"401", "POST", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", "", "", `{}`, nil, 401},
		{"403 verdict", "POST", "/verdict", "/verdict", keyT1View, "", `{"tenantId": "t1", "agentId": "a", "method": "m"}`, nil, 403},
		{"403 release", "POST", "/tenants/t1/agents/a/release", "/tenants/{tenantId}/agents/{agentId}/release", keyT1Op, "", "", nil, 403},
		{"404 other tenant", "PUT", "/tenants/t2/risk-config", "/tenants/{tenantId}/risk-config", keyT1View, "", `{}`, nil, 404},
		{"413 verdict", "POST", "/verdict", "/verdict", keyT1Op, "", `{"agentId": "` + strings.Repeat("x", 70<<10) + `"}`, nil, 413},
		{"413 rule", "POST", "/tenants/t1/alert-rules", "/tenants/{tenantId}/alert-rules", keyT1, "", strings.Repeat(" ", 70<<10), nil, 413},
		{"415 yaml config", "PUT", "/tenants/t1/risk-config", "/tenants/{tenantId}/risk-config", keyT1, "application/yaml", "enabled: true\n", nil, 415},
		{"415 yaml events", "POST", "/tenants/t1/events", "/tenants/{tenantId}/events", keyT1, "text/yaml", "- a\n", nil, 415},
		{"431 handler", "GET", "/tenants/t1/agents", "/tenants/{tenantId}/agents", keyT1, "", "", map[string]string{"X-Big": strings.Repeat("a", 62<<10), "X-Big2": strings.Repeat("b", 3<<10)}, 431},
		{"431 net/http", "GET", "/healthz", "/healthz", "", "", "", map[string]string{"X-Big": strings.Repeat("a", 200<<10)}, 431},
	}
	for _, c := range cases {
		code, out := raw(c.method, c.path, c.key, c.ctype, c.body, c.hdr)
		if code != c.want {
			t.Errorf("%s: %d, want %d: %.200s", c.name, code, c.want, out)
			continue
		}
		oa.check(t, c.method, c.tmpl, code, out)
	}
	// 500: the store is gone; the answer is still the documented JSON error.
	ts.store.Close()
	code, out := raw("GET", "/tenants/t1/alert-rules", keyT1, "", "", nil)
	if code != 500 {
		t.Fatalf("closed store: %d %s", code, out)
	}
	oa.check(t, "GET", "/tenants/{tenantId}/alert-rules", code, out)
	if strings.Contains(string(out), "sql") {
		t.Errorf("500 reveals internals: %s", out)
	}
}
