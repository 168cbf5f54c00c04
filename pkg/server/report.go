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

func (s *Server) tenantReport(w http.ResponseWriter, r *http.Request, tenant string) {
	if tenant != "" && !principalFrom(r.Context()).CanAccess(tenant) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("tenant %q not found", tenant), "")
		return
	}
	d, err := report.Build(r.Context(), s.store, report.Options{Tenant: tenant})
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
