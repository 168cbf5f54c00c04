package server

import (
	"context"
	"fmt"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
)

// Per-tenant limits (limits: in server.yaml): what one tenant may hold, so
// that its agents and rules cannot make the server slow or large for the
// others. The schema gives the defaults; a Config built in Go without them
// gets the same.
const (
	defaultMaxAgentsPerTenant     = 10000
	defaultMaxAlertRulesPerTenant = 100
)

func (s *Server) maxAgentsPerTenant() int {
	if n := s.cfg.Limits.MaxAgentsPerTenant; n > 0 {
		return n
	}
	return defaultMaxAgentsPerTenant
}

func (s *Server) maxAlertRulesPerTenant() int {
	if n := s.cfg.Limits.MaxAlertRulesPerTenant; n > 0 {
		return n
	}
	return defaultMaxAlertRulesPerTenant
}

// limitError is a request refused by a per-tenant limit (409), naming the
// first field over it.
type limitError struct {
	field string
	msg   string
}

func (e *limitError) Error() string { return e.msg }

// checkAgentLimit refuses events that would take tenant past
// maxAgentsPerTenant distinct agents, naming the first event of an agent
// over the limit. Its cost is one count while the request stays within the
// limit, else one lookup per distinct agent of the request up to the one
// over it. It runs under the ingest lock, so concurrent requests cannot
// pass it together (replicas on one store may, by one request each).
func (s *Server) checkAgentLimit(ctx context.Context, tenant string, events []agentrisk.Event) error {
	max := s.maxAgentsPerTenant()
	first := make(map[string]int)
	var order []string
	for i := range events {
		if _, ok := first[events[i].AgentID]; !ok {
			first[events[i].AgentID] = i
			order = append(order, events[i].AgentID)
		}
	}
	st := s.engine.Store()
	have, err := st.CountAgents(ctx, tenant)
	if err != nil {
		return err
	}
	if have+len(order) <= max {
		return nil
	}
	added := 0
	for _, id := range order {
		ok, err := st.AgentExists(ctx, tenant, id)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if added++; have+added > max {
			return &limitError{
				field: fmt.Sprintf("/%d/agent_id", first[id]),
				msg: fmt.Sprintf("invalid events: /%d/agent_id: tenant %s holds %d agents; agent %q would exceed its limit of %d (limits.maxAgentsPerTenant); nothing was stored",
					first[id], tenant, have, clip(id), max),
			}
		}
	}
	return nil
}

// checkRuleLimit refuses a new rule (an id the tenant does not have) past
// maxAlertRulesPerTenant; replacing a rule is always allowed.
func (s *Server) checkRuleLimit(ctx context.Context, tenant, id string) error {
	rules, err := alerts.ListRules(ctx, s.store, tenant)
	if err != nil {
		return err
	}
	for _, r := range rules {
		if r.ID == id {
			return nil
		}
	}
	if max := s.maxAlertRulesPerTenant(); len(rules) >= max {
		return &limitError{field: "/id", msg: fmt.Sprintf("invalid alert rule: /id: tenant %s holds %d alert rules, its limit (limits.maxAlertRulesPerTenant); delete one first", tenant, max)}
	}
	return nil
}
