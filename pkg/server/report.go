package server

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/report"
)

// report is GET /report (the key's own tenant; an admin key names one with
// ?tenant=) and GET /tenants/{tenantId}/report: the HTML report of lf report,
// its agents limited to the tenant, served with the page's CSP as a header.
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	t := p.Tenant
	if p.Admin {
		t = r.URL.Query().Get("tenant")
	}
	if t == "" && !p.Admin {
		writeError(w, http.StatusNotFound, "no tenant for this key", "")
		return
	}
	s.tenantReport(w, r, t)
}

// reportAt reads ?at=, the moment the store's report shows its risk
// scorers and AgentLeak scans as of (RFC 3339 or a time ago such as 7d, as
// lf report --at takes it); the zero time without it. It answers 400 and
// returns false for a moment it cannot read, or for a tenant's report,
// which shows agents only.
func reportAt(w http.ResponseWriter, r *http.Request, agentsOnly bool) (time.Time, bool) {
	q := r.URL.Query()
	if !q.Has("at") {
		return time.Time{}, true
	}
	if agentsOnly {
		writeError(w, http.StatusBadRequest, "at: a tenant's report shows its agents' latest scores only; ?at= applies to the store's report (a global admin key without ?tenant=)", "at")
		return time.Time{}, false
	}
	at, ok := project.ParseWhen(q.Get("at"), time.Now())
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("at: %q is neither RFC 3339 (e.g. 2026-11-20T00:00:00Z) nor a time ago such as 7d, 12h, 30m or 2w", q.Get("at")), "at")
		return time.Time{}, false
	}
	return at, true
}

// reportMaxAgents is how many agents a report shows in detail, highest
// scores first; the list endpoint pages through all of them.
const reportMaxAgents = 100

func (s *Server) tenantReport(w http.ResponseWriter, r *http.Request, tenant string) {
	if tenant != "" && !principalFrom(r.Context()).CanAccess(tenant) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("tenant %q not found", tenant), "")
		return
	}
	// A tenant's report holds that tenant's agents only: the risk scorers
	// and AgentLeak runs belong to the store, not to a tenant (a global
	// admin's report without ?tenant= shows them). Its cost is bounded by
	// reportMaxAgents, whatever the tenant holds.
	o := report.Options{Tenant: tenant, AgentsOnly: tenant != "", MaxAgents: reportMaxAgents}
	var ok bool
	if o.At, ok = reportAt(w, r, o.AgentsOnly); !ok {
		return
	}
	d, err := report.Build(r.Context(), s.store, o)
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, d); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", report.CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
