package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/schemas"
)

// Problem is one located problem of a request body.
type Problem struct {
	Field   string `json:"field,omitempty"` // JSON pointer into the body
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// ErrorBody is every error response: a message, the first offending field
// and, for invalid bodies, all problems.
type ErrorBody struct {
	Error    string    `json:"error"`
	Field    string    `json:"field,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"error":"internal: cannot encode the response"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, msg, field string) {
	writeJSON(w, status, ErrorBody{Error: msg, Field: field})
}

// writeInvalid answers 400 with every diagnostic as a problem.
func writeInvalid(w http.ResponseWriter, what string, d diag.List) {
	d.Sort()
	body := ErrorBody{Error: "invalid " + what}
	for _, x := range d.Errors() {
		body.Problems = append(body.Problems, Problem{Field: x.Pointer, Line: x.Line, Column: x.Col, Message: x.Msg})
	}
	if len(body.Problems) > 0 {
		p := body.Problems[0]
		body.Field = p.Field
		if p.Field != "" {
			body.Error = fmt.Sprintf("invalid %s: %s: %s", what, p.Field, p.Message)
		} else {
			body.Error = fmt.Sprintf("invalid %s: %s", what, p.Message)
		}
	}
	writeJSON(w, http.StatusBadRequest, body)
}

// writeEngineError maps engine errors: not found -> 404, invalid -> 400,
// anything else -> 500 (logged, not echoed).
func (s *Server) writeEngineError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeEngineErrorAs(w, r, principalFrom(r.Context()).Name, err)
}

// writeEngineErrorAs is writeEngineError for the key named key.
func (s *Server) writeEngineErrorAs(w http.ResponseWriter, r *http.Request, key string, err error) {
	var de *diag.Error
	switch {
	case errors.Is(err, agentrisk.ErrNotFound), errors.Is(err, alerts.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error(), "")
	case errors.As(err, &de) && de.Code == diag.ExitInvalid:
		if len(de.Diags) > 0 {
			writeInvalid(w, "request", de.Diags)
			return
		}
		writeError(w, http.StatusBadRequest, de.Error(), "")
	case isUnavailable(err):
		s.writeUnavailable(w, r, err)
	default:
		s.logf("%s %s by %s: %v", r.Method, r.URL.Path, key, err)
		writeError(w, http.StatusInternalServerError, "internal error; see the server log", "")
	}
}

func (s *Server) routes() http.Handler {
	public := map[string]http.HandlerFunc{
		"GET /healthz":      s.healthz,
		"GET /openapi.json": s.openapi,
	}
	// Endpoints that name no tenant in the path. POST /verdict checks the
	// tenant of its body first and the role after (isolation first).
	plain := map[string]http.HandlerFunc{
		"POST /verdict": s.verdict,
		"GET /report":   s.requireRole("GET /report", s.report),
	}
	tenantScoped := map[string]func(w http.ResponseWriter, r *http.Request, tenant string){
		"GET /tenants/{tenantId}/agents":                             s.listAgents,
		"GET /tenants/{tenantId}/agents/{agentId}/risk":              s.getAgentRisk,
		"POST /tenants/{tenantId}/risk/recalculate":                  s.recalculate,
		"POST /tenants/{tenantId}/agents/{agentId}/risk/recalculate": s.recalculate,
		"GET /tenants/{tenantId}/agents/{agentId}/baseline":          s.getBaseline,
		"DELETE /tenants/{tenantId}/agents/{agentId}/baseline":       s.resetBaseline,
		"POST /tenants/{tenantId}/agents/{agentId}/release":          s.release,
		"GET /tenants/{tenantId}/risk-config":                        s.getRiskConfig,
		"PUT /tenants/{tenantId}/risk-config":                        s.putRiskConfig,
		"POST /tenants/{tenantId}/events":                            s.ingest,
		"GET /tenants/{tenantId}/alert-rules":                        s.listRules,
		"POST /tenants/{tenantId}/alert-rules":                       s.createRule,
		"DELETE /tenants/{tenantId}/alert-rules/{ruleId}":            s.deleteRule,
		"GET /tenants/{tenantId}/alert-deliveries":                   s.listDeliveries,
		"GET /tenants/{tenantId}/report":                             s.tenantReport,
	}
	mux := http.NewServeMux()
	api := http.NewServeMux()
	for _, rt := range routeTable {
		switch {
		case public[rt.pattern] != nil:
			mux.HandleFunc(rt.pattern, public[rt.pattern])
		case plain[rt.pattern] != nil:
			api.HandleFunc(rt.pattern, plain[rt.pattern])
		case tenantScoped[rt.pattern] != nil:
			api.HandleFunc(rt.pattern, s.tenant(rt.pattern, tenantScoped[rt.pattern]))
		default:
			panic("server: no handler for route " + rt.pattern)
		}
	}
	for p := range public {
		// Another method on a public path: 405 without a key.
		mux.HandleFunc(strings.SplitN(p, " ", 2)[1], func(w http.ResponseWriter, r *http.Request) {
			dropBody(w, r)
			writeMethodNotAllowed(w, r, allowedMethods(r, mux))
		})
	}
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		dropBody(w, r)
		if allow := allowedMethods(r, api); len(allow) > 0 {
			writeMethodNotAllowed(w, r, allow)
			return
		}
		writeError(w, http.StatusNotFound, "no such endpoint; see /openapi.json", "")
	})
	mux.Handle("/", s.authenticate(api))
	return s.guard(s.recoverer(s.verdictRoute(mux)))
}

// allowedMethods lists the methods mux has a route for on r's path (none:
// the path is unknown). It asks the mux itself, so routes added later are
// covered.
func allowedMethods(r *http.Request, mux *http.ServeMux) []string {
	var allow []string
	for _, m := range []string{http.MethodDelete, http.MethodGet, http.MethodPost, http.MethodPut} {
		probe := *r
		probe.Method = m
		if _, pattern := mux.Handler(&probe); pattern != "" && pattern != "/" && strings.HasPrefix(pattern, m+" ") {
			allow = append(allow, m)
		}
	}
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	return allow
}

// writeMethodNotAllowed answers 405 with the Allow header (RFC 9110 15.5.6).
func writeMethodNotAllowed(w http.ResponseWriter, r *http.Request, allow []string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s; allowed: %s", r.Method, clip(r.URL.Path), strings.Join(allow, ", ")), "")
}

// recoverer turns a handler panic into a 500 and keeps the server up.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logf("%s %s: internal error: %v", r.Method, r.URL.Path, v)
				writeError(w, http.StatusInternalServerError, "internal error; see the server log", "")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// tenant guards a tenant-scoped handler. Isolation comes first: a key of
// another tenant gets the same 404 as a tenant that does not exist, so keys
// cannot probe tenants; then a key of the tenant without the route's role
// gets 403; then the path's ids are checked (400). All of this happens
// before the body is read.
func (s *Server) tenant(pattern string, h func(w http.ResponseWriter, r *http.Request, tenant string)) http.HandlerFunc {
	need := roleOf(pattern)
	return func(w http.ResponseWriter, r *http.Request) {
		t := r.PathValue("tenantId")
		p := principalFrom(r.Context())
		if !p.CanAccess(t) {
			dropBody(w, r)
			writeError(w, http.StatusNotFound, fmt.Sprintf("tenant %q not found", clip(t)), "")
			return
		}
		if !p.Allows(need) {
			dropBody(w, r)
			writeForbidden(w, p, need)
			return
		}
		if !checkPathIDs(w, r) {
			dropBody(w, r)
			return
		}
		if !takesBody[pattern] {
			dropBody(w, r) // a body nobody reads must not hold the answer back
		}
		h(w, r, t)
	}
}

// Health is GET /healthz.
type Health struct {
	Status        string     `json:"status"`
	Recalculating bool       `json:"recalculating"`
	RecalcLeader  bool       `json:"recalcLeader"` // this replica runs the background recalculation
	LastRecalc    *time.Time `json:"lastRecalculation,omitempty"`
	LastError     string     `json:"lastRecalculationError,omitempty"`
	PendingAlerts int        `json:"pendingAlerts"`
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := Health{Status: "ok", PendingAlerts: s.dispatcher.Pending(), RecalcLeader: s.recalc.leader.Load()}
	h.Recalculating = s.recalc.running.Load() > 0
	s.recalc.statMu.Lock()
	if !s.recalc.lastRun.IsZero() {
		t := s.recalc.lastRun.UTC().Truncate(time.Second)
		h.LastRecalc = &t
	}
	if s.recalc.lastErr != nil {
		h.LastError = "the last recalculation failed; see the server log"
	}
	s.recalc.statMu.Unlock()
	writeJSON(w, http.StatusOK, h)
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	b, err := schemas.FS.ReadFile("openapi.json")
	if err != nil {
		writeError(w, http.StatusInternalServerError, "openapi document missing", "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// VerdictRequest is POST /verdict.
type VerdictRequest struct {
	TenantID string `json:"tenantId"`
	AgentID  string `json:"agentId"`
	Method   string `json:"method"`
	Shadow   bool   `json:"shadow"`
}

// VerdictResponse is the engine's Decision with what it was made on.
type VerdictResponse struct {
	TenantID string `json:"tenantId"`
	AgentID  string `json:"agentId"`
	Score    int    `json:"score"`
	Scored   bool   `json:"scored"` // false: the agent has no score yet and is decided as 0
	agentrisk.Decision
}

// verdict is POST /verdict reached through the mux (routes sends it to
// verdictAs directly; see verdictRoute).
func (s *Server) verdict(w http.ResponseWriter, r *http.Request) {
	s.verdictAs(w, r, principalFrom(r.Context()))
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, err)
	case errors.As(err, &te):
		return fmt.Sprintf("/%s: expected %s, got %s", strings.ReplaceAll(te.Field, ".", "/"), te.Type, te.Value)
	case errors.Is(err, io.EOF):
		return "empty body"
	}
	return err.Error()
}

func jsonField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return "/" + strings.ReplaceAll(te.Field, ".", "/")
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		return "/" + strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
	}
	return ""
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, tenant string) {
	pg, ok := readPage(w, r)
	if !ok {
		return
	}
	list, err := s.engine.ListAll(r.Context(), tenant)
	if errors.Is(err, agentrisk.ErrNotFound) {
		list, err = []agentrisk.AgentSummary{}, nil
	}
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	if list == nil {
		list = []agentrisk.AgentSummary{}
	}
	writeJSON(w, http.StatusOK, pg.slice(w, r, list)) // paging.go
}

func (s *Server) getAgentRisk(w http.ResponseWriter, r *http.Request, tenant string) {
	risk, err := s.engine.GetForAgent(r.Context(), tenant, r.PathValue("agentId"))
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, risk)
}

// RecalcResponse is the answer of an on-demand recalculation.
type RecalcResponse struct {
	TenantID     string             `json:"tenantId"`
	Recalculated int                `json:"recalculated"`
	Changes      []agentrisk.Change `json:"changes"`
	// WhatIf: the scores were computed at another time (?at= beyond
	// maxAtSkew of now, an admin's question) and not stored: enforcement,
	// the verdicts and the alerts are unchanged.
	WhatIf bool `json:"whatIf,omitempty"`
}

// scoreAt reads the optional ?at= score time; false when it answered 400.
func scoreAt(w http.ResponseWriter, r *http.Request) (time.Time, bool) {
	v := r.URL.Query().Get("at")
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("at: not an RFC 3339 time (e.g. 2026-04-16T14:00:00Z): %q", v), "at")
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Second), true
}

func (s *Server) recalculate(w http.ResponseWriter, r *http.Request, tenant string) {
	at, ok := scoreAt(w, r)
	if !ok {
		return
	}
	var changes []agentrisk.Change
	var err error
	whatIf := !at.IsZero() && !s.nearScoreTime(at)
	switch {
	case whatIf && !principalFrom(r.Context()).Allows(RoleAdmin):
		writeError(w, http.StatusForbidden, fmt.Sprintf("at: scoring at another time than now (more than %s away) needs role admin, and is a what-if that changes nothing", maxAtSkew), "at")
		return
	case whatIf:
		changes, err = agentrisk.WhatIf(context.WithoutCancel(r.Context()), s.engine, agentrisk.RecalcOptions{Tenant: tenant, Agent: r.PathValue("agentId"), At: at})
	default:
		changes, err = s.recalc.run(r.Context(), tenant, r.PathValue("agentId"), at)
	}
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	if changes == nil {
		changes = []agentrisk.Change{}
	}
	writeJSON(w, http.StatusOK, RecalcResponse{TenantID: tenant, Recalculated: len(changes), Changes: changes, WhatIf: whatIf})
}

// maxAtSkew is how far ?at= may lie from the server's score time (now, or
// scoreTime of server.yaml) for a recalculation that is stored. Further, it
// is an admin's what-if (recalculate: answered, not stored) or refused
// (events): a score at another time never changes enforcement, so a key
// cannot lift a block by scoring in the future, nor make alerts fire again
// by scoring back and forth.
const maxAtSkew = 5 * time.Minute

// nearScoreTime tells whether at lies within maxAtSkew of the score time.
func (s *Server) nearScoreTime(at time.Time) bool {
	d := at.Sub(s.scoreTime())
	return d <= maxAtSkew && d >= -maxAtSkew
}

func (s *Server) getBaseline(w http.ResponseWriter, r *http.Request, tenant string) {
	b, err := s.engine.Baseline(r.Context(), tenant, r.PathValue("agentId"))
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	if b.Baseline.Tools == nil {
		b.Baseline.Tools = []agentrisk.ToolBaseline{}
	}
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) resetBaseline(w http.ResponseWriter, r *http.Request, tenant string) {
	if err := s.engine.ResetBaseline(r.Context(), tenant, r.PathValue("agentId"), s.now().UTC().Truncate(time.Second)); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) release(w http.ResponseWriter, r *http.Request, tenant string) {
	agent := r.PathValue("agentId")
	if err := s.engine.Release(r.Context(), tenant, agent); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	s.announce(r.Context(), changeAgent, tenant, agent)
	if err := s.state.refreshAgent(r.Context(), tenant, agent); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	st, err := s.engine.AgentState(r.Context(), tenant, agent, s.now())
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	s.logf("release: tenant %s agent %s by key %s", tenant, agent, principalFrom(r.Context()).Name)
	st.TierSince, st.CalculatedAt = st.TierSince.Truncate(time.Second), st.CalculatedAt.Truncate(time.Second) // as the reference shows times
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) getRiskConfig(w http.ResponseWriter, r *http.Request, tenant string) {
	cfg, err := s.engine.GetRiskConfig(r.Context(), tenant)
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	cfg.TenantID = tenant
	writeJSON(w, http.StatusOK, cfg)
}

func (s *Server) putRiskConfig(w http.ResponseWriter, r *http.Request, tenant string) {
	b, ok := s.readJSONBody(w, r, maxSmallBody, riskConfigShape, false)
	if !ok {
		return
	}
	cfg, d := agentrisk.ParseRiskConfig("body", b)
	if d.HasErrors() {
		writeInvalid(w, "risk config", d)
		return
	}
	if cfg.TenantID != "" && cfg.TenantID != tenant {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid risk config: /tenantId: %q does not match the tenant of the path %q", cfg.TenantID, tenant), "/tenantId")
		return
	}
	if err := s.engine.PutRiskConfig(r.Context(), tenant, cfg); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	s.state.dropConfig(tenant)
	s.announce(r.Context(), changeConfig, tenant, "")
	s.getRiskConfig(w, r, tenant)
}

func (s *Server) ingest(w http.ResponseWriter, r *http.Request, tenant string) {
	at, ok := scoreAt(w, r)
	if !ok {
		dropBody(w, r)
		return
	}
	if !at.IsZero() && !s.nearScoreTime(at) {
		dropBody(w, r)
		writeError(w, http.StatusBadRequest, fmt.Sprintf("at: the recalculation after an ingest scores at the server's score time (within %s of %s); a score at another time is a what-if of POST .../risk/recalculate?at= (role admin)", maxAtSkew, s.scoreTime().Format(time.RFC3339)), "at")
		return
	}
	b, ok := s.readJSONBody(w, r, maxEventsBody, eventsShape, true)
	if !ok {
		return
	}
	events, d := agentrisk.ParseEvents("body", bytes.NewReader(b))
	if d.HasErrors() {
		writeInvalid(w, "events", d)
		return
	}
	if len(events) == 0 {
		writeError(w, http.StatusBadRequest, "no events in the body: send a JSON array or NDJSON, one event per line", "")
		return
	}
	for i := range events {
		if ts := events[i].Timestamp; ts.Before(minEventTime) || ts.After(maxEventTime) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid events: /%d/timestamp: %s is outside %d..%d", i, ts.Format(time.RFC3339), minEventTime.Year(), maxEventTime.Year()-1), fmt.Sprintf("/%d/timestamp", i))
			return
		}
		switch events[i].TenantID {
		case "":
			events[i].TenantID = tenant
		case tenant:
		default:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid events: /%d/tenant_id: %q does not match the tenant of the path %q", i, events[i].TenantID, tenant), fmt.Sprintf("/%d/tenant_id", i))
			return
		}
	}
	var res agentrisk.IngestResult
	var ticket liveTicket
	var err error
	// tenantlimits.go: the tenant's agents stay within its limit.
	check := func(ctx context.Context) error { return s.checkAgentLimit(ctx, tenant, events) }
	runBulk(func() { // bgwork.go: below the verdicts' priority
		res, ticket, err = s.ingestCommitChecked(r.Context(), events, check) // live.go: the rows written go to the live path
	})
	s.waitLive(ticket) // answer once the touched agents' new scores are in the verdict state
	var le *limitError
	if errors.As(err, &le) {
		writeError(w, http.StatusConflict, le.Error(), le.field)
		return
	}
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	if v := r.URL.Query().Get("recalculate"); v == "true" || v == "1" {
		if _, err := s.recalc.run(r.Context(), tenant, "", at); err != nil {
			s.writeEngineError(w, r, err)
			return
		}
	}
	res.Latest = res.Latest.Truncate(time.Second) // as the reference shows times
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) listRules(w http.ResponseWriter, r *http.Request, tenant string) {
	rules, err := alerts.ListRules(r.Context(), s.store, tenant)
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	out := make([]alerts.PublicRule, 0, len(rules))
	for _, x := range rules {
		out = append(out, x.Public())
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createRule(w http.ResponseWriter, r *http.Request, tenant string) {
	b, ok := s.readJSONBody(w, r, maxSmallBody, ruleShape, false)
	if !ok {
		return
	}
	rule, d := alerts.RuleBody.Parse("body", b, alerts.BodyRule{Tenant: tenant, RuleCheck: alerts.RuleCheck{Allow: s.cfg.Alerts.AllowHosts, Secrets: s.cfg.Secrets, Server: true}}).One()
	if d.HasErrors() {
		writeInvalid(w, "alert rule", d)
		return
	}
	rule.CreatedAt = s.now().UTC().Truncate(time.Second)
	s.ruleMu.Lock() // counting and adding together (tenantlimits.go)
	defer s.ruleMu.Unlock()
	if err := s.checkRuleLimit(r.Context(), tenant, rule.ID); err != nil {
		var le *limitError
		if errors.As(err, &le) {
			writeError(w, http.StatusConflict, le.Error(), le.field)
			return
		}
		s.writeEngineError(w, r, err)
		return
	}
	if err := alerts.PutRule(r.Context(), s.store, rule); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, rule.Public())
}

func (s *Server) deleteRule(w http.ResponseWriter, r *http.Request, tenant string) {
	if err := alerts.DeleteRule(r.Context(), s.store, tenant, r.PathValue("ruleId")); err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request, tenant string) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			writeError(w, http.StatusBadRequest, "limit must be an integer between 1 and 10000", "limit")
			return
		}
		limit = n
	}
	ds, err := alerts.ListDeliveries(r.Context(), s.store, tenant, limit)
	if err != nil {
		s.writeEngineError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ds)
}
