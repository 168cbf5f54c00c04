package server

import (
	"bytes"
	"fmt"
	"net/http"

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
