package server

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentleak/compliance"
)

// The AgentLeak compliance mapping of each trace GET /tenants/{id}/leaks
// lists (docs/compliance.md): the summary is made when the trace is
// scanned; the whole section (every control, its evidence, the evidence
// matrix and the integrity digest) is evaluated on request
// (?compliance=full) from what the mapping reads of the trace: the leaked
// findings' ids, channels, data types and levels, the run values and the
// privacy policy's verdicts, never a matched value.

// leakCompliance gives a scanned trace's record its compliance summary and
// keeps the mapping's input for the whole section. The result may be one a
// scanner reuses: everything is copied.
func (s *Server) leakCompliance(rec *LeakRecord, res *agentleak.Result, tenant string) {
	var cfg *agentleak.Config
	if ts := s.otlp.set.scanners[tenant]; ts != nil {
		cfg = ts.cfg
	}
	// The report time of the digest is the scan's, so that the same trace
	// gives the same digest on every request.
	in := res.ComplianceInput(cfg, rec.ScannedAt.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05+00:00"))
	in.RunID = rec.TraceID
	rec.compliance = &in
	if res.Compliance != nil {
		rec.Compliance = &agentleak.ComplianceResult{Assessment: res.Compliance.Assessment}
	} else {
		rec.Compliance = &agentleak.ComplianceResult{Assessment: compliance.Assess(&in)}
	}
}

// leaksComplianceMode reads ?compliance= (summary, the default; full; off);
// false when it answered 400.
func leaksComplianceMode(w http.ResponseWriter, r *http.Request) (agentleak.ComplianceMode, bool) {
	v := r.URL.Query().Get("compliance")
	if v == "" {
		return agentleak.ComplianceSummary, true
	}
	mode, ok := agentleak.ParseComplianceMode(v)
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("compliance: %q is not one of %s", clip(v), strings.Join(agentleak.ComplianceModes, ", ")), "compliance")
		return 0, false
	}
	return mode, true
}

// withCompliance returns the records as the mode shows them: the summary
// as kept, the whole section evaluated for each, or none. The records are
// copies; the kept ones are not changed.
func withCompliance(leaks []LeakRecord, mode agentleak.ComplianceMode) []LeakRecord {
	for i := range leaks {
		l := &leaks[i]
		switch {
		case mode == agentleak.ComplianceOff:
			l.Compliance = nil
		case mode == agentleak.ComplianceFull && l.compliance != nil:
			l.Compliance = &agentleak.ComplianceResult{Assessment: compliance.Assess(l.compliance), Report: compliance.Evaluate(l.compliance)}
		}
	}
	return leaks
}
