package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestReportTenantScoped: GET /report serves the HTML report of the key's
// tenant only; another tenant's report is a 404, as for every tenant route.
func TestReportTenantScoped(t *testing.T) {
	ts := startServer(t, testConfig(t, ""))
	ts.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true", events("t1", 5))
	ts.call(t, keyT2, "POST", "/tenants/t2/events?recalculate=true", events("t2", 5))
	code, out := ts.call(t, keyT1, "GET", "/report", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /report: %d %s", code, out)
	}
	page := string(out)
	if !strings.Contains(page, "for tenant t1") || !strings.Contains(page, "t1/") {
		t.Errorf("report is not t1's:\n%.400s", page)
	}
	if strings.Contains(page, "t2/") {
		t.Error("t1's report shows t2's agents")
	}
	if code, _ := ts.call(t, keyT1, "GET", "/tenants/t2/report", nil); code != http.StatusNotFound {
		t.Errorf("t1 key on t2's report: %d, want 404", code)
	}
	if code, _ := ts.call(t, keyT1, "GET", "/tenants/t1/report", nil); code != http.StatusOK {
		t.Errorf("t1 key on its own report: %d, want 200", code)
	}
	if code, _ := ts.call(t, "", "GET", "/report", nil); code != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401", code)
	}
}
