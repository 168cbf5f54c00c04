package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// Tx is the half of a backend's transaction that both backends share: the
// reads and writes inside one transaction whose logic is the same. A
// backend's Tx embeds it.
type Tx struct {
	q   Querier
	app string
	loc string
}

// NewTx returns the shared half of the transaction q of a handle on app;
// loc is the store's location, for messages.
func NewTx(q Querier, app, loc string) Tx { return Tx{q: q, app: app, loc: loc} }

func (t *Tx) errf(what string, err error) error { return Errf(t.loc, what, err) }

// Entities lists the entities of a kind inside the transaction.
func (t *Tx) Entities(ctx context.Context, kind model.Kind) ([]backend.Entity, error) {
	return Entities(ctx, t.q, t.app, kind)
}

// RiskScorers returns the risk scorers inside the transaction.
func (t *Tx) RiskScorers(ctx context.Context) ([]*model.RiskScorer, error) {
	return RiskScorers(Entities(ctx, t.q, t.app, model.KindRiskScorer))
}

// Runs lists the runs inside the transaction.
func (t *Tx) Runs(ctx context.Context) ([]backend.RunRow, error) { return Runs(ctx, t.q, t.app) }

// DeleteEntity removes an entity, telling whether there was one.
func (t *Tx) DeleteEntity(ctx context.Context, kind model.Kind, key string) (bool, error) {
	n, err := t.q.Exec(ctx, DeleteEntity, t.app, string(kind), key)
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return n > 0, nil
}

// ReplaceRiskConfigs makes cfgs the whole set of stored risk configs.
func (t *Tx) ReplaceRiskConfigs(ctx context.Context, cfgs []backend.TenantBody, at time.Time) error {
	if _, err := t.q.Exec(ctx, DeleteRiskConfigs); err != nil {
		return t.errf("risk configs", err)
	}
	now := backend.FormatTime(at)
	for _, c := range cfgs {
		if _, err := t.q.Exec(ctx, InsertRiskConfig, c.TenantID, c.Body, now); err != nil {
			return t.errf("risk configs", err)
		}
	}
	return nil
}

// AgentAggregate returns one agent's row inside the transaction; ok is
// false when the agent has none.
func (t *Tx) AgentAggregate(ctx context.Context, tenantID, agentID string) (r backend.AgentRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = t.q.QueryRow(ctx, AgentAggregate, tenantID, agentID).Scan(&r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt)
	switch {
	case noRows(err):
		return r, false, nil
	case err != nil:
		return r, false, t.errf("agent", err)
	}
	return r, true, nil
}

// ResetAgentBaseline stores an agent's aggregate with its learned patterns
// dropped, the time of the reset and an empty baseline.
func (t *Tx) ResetAgentBaseline(ctx context.Context, tenantID, agentID string, agg []byte, at time.Time, emptyBaseline string) error {
	if _, err := t.q.Exec(ctx, ResetAgentAggregate, agg, backend.FormatTime(at), tenantID, agentID); err != nil {
		return t.errf("reset baseline", err)
	}
	if _, err := t.q.Exec(ctx, ResetScoreBaseline, emptyBaseline, tenantID, agentID); err != nil {
		return t.errf("reset baseline", err)
	}
	return nil
}

// AgentScores returns the latest scores (tenant, agent, score, tier, tier
// since) of a tenant's agents ("" for every tenant) inside the transaction.
func (t *Tx) AgentScores(ctx context.Context, tenantID string) ([]backend.AgentScoreRow, error) {
	st, args := forTenant(AgentScoresAll, AgentScoresOfTenant, tenantID)
	out, err := Scores(t.q.Query(ctx, st, args...))
	if err != nil {
		return nil, t.errf("agent scores", err)
	}
	return out, nil
}

// AlertRule returns the stored JSON of a tenant's rule; ok is false when
// there is none.
func (t *Tx) AlertRule(ctx context.Context, tenantID, id string) (body string, ok bool, err error) {
	err = t.q.QueryRow(ctx, AlertRule, tenantID, id).Scan(&body)
	switch {
	case noRows(err):
		return "", false, nil
	case err != nil:
		return "", false, t.errf(fmt.Sprintf("alert rule %s/%s", tenantID, id), err)
	}
	return body, true, nil
}

// PutAlertRule creates or replaces a rule (keeping the first created time)
// and forgets its crossing state.
func (t *Tx) PutAlertRule(ctx context.Context, tenantID, id, body string, created time.Time) error {
	if _, err := t.q.Exec(ctx, PutAlertRule, tenantID, id, body, backend.FormatTime(created)); err != nil {
		return t.errf(fmt.Sprintf("put alert rule %s/%s", tenantID, id), err)
	}
	if _, err := t.q.Exec(ctx, DeleteAlertStates, tenantID, id); err != nil {
		return t.errf(fmt.Sprintf("put alert rule %s/%s", tenantID, id), err)
	}
	return nil
}

// DeleteAlertRule removes a rule and its crossing state, telling whether
// there was one.
func (t *Tx) DeleteAlertRule(ctx context.Context, tenantID, id string) (bool, error) {
	n, err := t.q.Exec(ctx, DeleteAlertRule, tenantID, id)
	if err != nil {
		return false, t.errf(fmt.Sprintf("delete alert rule %s/%s", tenantID, id), err)
	}
	if n == 0 {
		return false, nil
	}
	if _, err := t.q.Exec(ctx, DeleteAlertStates, tenantID, id); err != nil {
		return false, t.errf(fmt.Sprintf("delete alert rule %s/%s", tenantID, id), err)
	}
	return true, nil
}

// PutOutboxAlert adds a fired alert to the outbox (90_alert_outbox.sql).
func (t *Tx) PutOutboxAlert(ctx context.Context, a backend.OutboxAlert) error {
	if _, err := t.q.Exec(ctx, PutOutboxAlert, a.AlertID, a.TenantID, a.RuleID, a.AgentID, a.Body,
		backend.FormatTime(a.CreatedAt), backend.FormatTime(a.LeaseUntil)); err != nil {
		return t.errf("put outbox alert", err)
	}
	return nil
}

// AlertStates reads and writes whether agents are above rules' thresholds
// inside one transaction; a backend's AlertStates embeds it and adds Swap.
type AlertStates struct {
	q   Querier
	loc string
}

// NewAlertStates returns the crossing states of the transaction q.
func NewAlertStates(q Querier, loc string) AlertStates { return AlertStates{q: q, loc: loc} }

// Above tells whether the agent was above the rule; known is false when no
// state was stored yet. On PostgreSQL the row stays locked until the
// transaction ends (see AlertState).
func (a *AlertStates) Above(ctx context.Context, tenantID, ruleID, agentID string) (above, known bool, err error) {
	var v int
	err = a.q.QueryRow(ctx, AlertState, tenantID, ruleID, agentID).Scan(&v)
	switch {
	case noRows(err):
		return false, false, nil
	case err != nil:
		return false, false, Errf(a.loc, "read alert state", err)
	}
	return v != 0, true, nil
}

// Set records whether the agent is above the rule at time at (the time
// since which it is so changes only when the state does).
func (a *AlertStates) Set(ctx context.Context, tenantID, ruleID, agentID string, above bool, at time.Time) error {
	v := 0
	if above {
		v = 1
	}
	if _, err := a.q.Exec(ctx, SetAlertState, tenantID, ruleID, agentID, v, backend.FormatTime(at)); err != nil {
		return Errf(a.loc, "write alert state", err)
	}
	return nil
}

// Close does nothing: the statements go with the transaction.
func (a *AlertStates) Close() {}
