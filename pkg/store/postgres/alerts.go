package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// Alert rules, the crossing state of each (rule, agent) and the delivery
// attempts (schema/30_alerts.sql). Rules are stored as the domain's JSON.

// AlertRule returns the stored JSON of a tenant's rule; ok is false when
// there is none.
func (t *Tx) AlertRule(ctx context.Context, tenantID, id string) (body string, ok bool, err error) {
	err = t.tx.QueryRow(ctx, `SELECT body FROM alert_rules WHERE tenant_id = $1 AND id = $2`, tenantID, id).Scan(&body)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, t.st.errf(fmt.Sprintf("alert rule %s/%s", tenantID, id), err)
	}
	return body, true, nil
}

// PutAlertRule creates or replaces a rule (keeping the first created time)
// and forgets its crossing state.
func (t *Tx) PutAlertRule(ctx context.Context, tenantID, id, body string, created time.Time) error {
	if _, err := t.tx.Exec(ctx, `INSERT INTO alert_rules (tenant_id, id, body, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, id) DO UPDATE SET body = excluded.body`,
		tenantID, id, body, backend.FormatTime(created)); err != nil {
		return t.st.errf(fmt.Sprintf("put alert rule %s/%s", tenantID, id), err)
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM alert_state WHERE tenant_id = $1 AND rule_id = $2`, tenantID, id); err != nil {
		return t.st.errf(fmt.Sprintf("put alert rule %s/%s", tenantID, id), err)
	}
	return nil
}

// DeleteAlertRule removes a rule and its crossing state, telling whether
// there was one.
func (t *Tx) DeleteAlertRule(ctx context.Context, tenantID, id string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM alert_rules WHERE tenant_id = $1 AND id = $2`, tenantID, id)
	if err != nil {
		return false, t.st.errf(fmt.Sprintf("delete alert rule %s/%s", tenantID, id), err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM alert_state WHERE tenant_id = $1 AND rule_id = $2`, tenantID, id); err != nil {
		return false, t.st.errf(fmt.Sprintf("delete alert rule %s/%s", tenantID, id), err)
	}
	return true, nil
}

// AlertRules returns the stored JSON of the rules of a tenant ("" for every
// tenant), ordered by tenant and id.
func (s *Store) AlertRules(ctx context.Context, tenantID string) ([]string, error) {
	q, args := forTenant(`SELECT body FROM alert_rules`, "tenant_id", tenantID, `ORDER BY tenant_id, id`)
	rows, err := s.Pool.Query(ctx, q, args...)
	if err != nil {
		return nil, s.errf("alert rules", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.errf("alert rules", err)
	}
	return out, nil
}

// AlertStates reads and writes whether agents are above rules' thresholds
// inside one transaction.
type AlertStates struct{ t *Tx }

// AlertStates returns the crossing states of the transaction.
func (t *Tx) AlertStates(ctx context.Context) (backend.AlertStates, error) {
	return &AlertStates{t: t}, nil
}

// Above tells whether the agent was above the rule; known is false when no
// state was stored yet. The row is locked until the transaction ends, so a
// replica deciding the same crossing waits for this one's decision.
func (a *AlertStates) Above(ctx context.Context, tenantID, ruleID, agentID string) (above, known bool, err error) {
	var v int
	err = a.t.tx.QueryRow(ctx, `SELECT above FROM alert_state WHERE tenant_id = $1 AND rule_id = $2 AND agent_id = $3 FOR UPDATE`,
		tenantID, ruleID, agentID).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, false, nil
	case err != nil:
		return false, false, a.t.st.errf("read alert state", err)
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
	if _, err := a.t.tx.Exec(ctx, `INSERT INTO alert_state (tenant_id, rule_id, agent_id, above, since) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, rule_id, agent_id) DO UPDATE SET above = excluded.above,
		since = CASE WHEN alert_state.above = excluded.above THEN alert_state.since ELSE excluded.since END`,
		tenantID, ruleID, agentID, v, backend.FormatTime(at)); err != nil {
		return a.t.st.errf("write alert state", err)
	}
	return nil
}

// Close does nothing.
func (a *AlertStates) Close() {}

// RecordAlertDelivery appends a delivery attempt.
func (s *Store) RecordAlertDelivery(ctx context.Context, d backend.AlertDelivery) error {
	_, err := s.Pool.Exec(ctx, `INSERT INTO alert_deliveries
		(tenant_id, rule_id, agent_id, alert_id, channel, target, attempt, status, status_code, error, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		d.TenantID, d.RuleID, d.AgentID, d.AlertID, d.Channel, d.Target, d.Attempt, d.Status, d.StatusCode, d.Error, backend.FormatTime(d.Time))
	if err != nil {
		return s.errf("record alert delivery", err)
	}
	return nil
}

// AlertDeliveries returns the recorded attempts of a tenant ("" for all),
// newest first, at most limit (0 for all).
func (s *Store) AlertDeliveries(ctx context.Context, tenantID string, limit int) ([]backend.AlertDelivery, error) {
	q, args := forTenant(`SELECT seq, tenant_id, rule_id, agent_id, alert_id, channel, target, attempt, status, status_code, error, created_at
		FROM alert_deliveries`, "tenant_id", tenantID, `ORDER BY seq DESC`)
	if limit > 0 {
		args = append(args, limit)
		q += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	out, err := rowset.Deliveries(s.Pool.Query(ctx, q, args...))
	if err != nil {
		return nil, s.errf("alert deliveries", err)
	}
	return out, nil
}

// Swap records the state and returns the one it replaced in one statement:
// the upsert changes the row only when the state differs and reports
// whether it inserted (xmax = 0). A concurrent Swap of the same row waits
// for this transaction, then finds the state already written and changes
// nothing, so of two replicas seeing one crossing only one is told so.
func (a *AlertStates) Swap(ctx context.Context, tenantID, ruleID, agentID string, above bool, at time.Time) (prev, known bool, err error) {
	v := 0
	if above {
		v = 1
	}
	var inserted bool
	err = a.t.tx.QueryRow(ctx, `INSERT INTO alert_state AS s (tenant_id, rule_id, agent_id, above, since) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, rule_id, agent_id) DO UPDATE SET above = excluded.above, since = excluded.since
		WHERE s.above <> excluded.above
		RETURNING (xmax = 0)`, tenantID, ruleID, agentID, v, backend.FormatTime(at)).Scan(&inserted)
	switch {
	case errors.Is(err, pgx.ErrNoRows): // the row already had this state
		return above, true, nil
	case err != nil:
		return false, false, a.t.st.errf("write alert state", err)
	case inserted:
		return false, false, nil
	}
	return !above, true, nil
}

// PutOutboxAlert adds a fired alert to the outbox (schema/90_alert_outbox.sql).
func (t *Tx) PutOutboxAlert(ctx context.Context, a backend.OutboxAlert) error {
	if _, err := t.tx.Exec(ctx, `INSERT INTO alert_outbox (alert_id, tenant_id, rule_id, agent_id, body, created_at, lease_until)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, a.AlertID, a.TenantID, a.RuleID, a.AgentID, a.Body, backend.FormatTime(a.CreatedAt), backend.FormatTime(a.LeaseUntil)); err != nil {
		return t.st.errf("put outbox alert", err)
	}
	return nil
}

// OutboxAlerts returns up to limit outbox alerts whose lease ended at or
// before due, oldest first.
func (s *Store) OutboxAlerts(ctx context.Context, due time.Time, limit int) ([]backend.OutboxAlert, error) {
	rows, err := s.Pool.Query(ctx, `SELECT alert_id, tenant_id, rule_id, agent_id, body, created_at, lease_until FROM alert_outbox
		WHERE lease_until <= $1 ORDER BY created_at, alert_id LIMIT $2`, backend.FormatTime(due), limit)
	if err != nil {
		return nil, s.errf("outbox", err)
	}
	defer rows.Close()
	var out []backend.OutboxAlert
	for rows.Next() {
		var a backend.OutboxAlert
		var created, lease string
		if err := rows.Scan(&a.AlertID, &a.TenantID, &a.RuleID, &a.AgentID, &a.Body, &created, &lease); err != nil {
			return nil, s.errf("outbox", err)
		}
		a.CreatedAt, _ = time.Parse(backend.TimeFormat, created)
		a.LeaseUntil, _ = time.Parse(backend.TimeFormat, lease)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errf("outbox", err)
	}
	return out, nil
}

// ClaimOutboxAlert leases an alert until until if its lease ended at or
// before due (one UPDATE: of two claims at once, one changes the row).
func (s *Store) ClaimOutboxAlert(ctx context.Context, alertID string, due, until time.Time) (bool, error) {
	tag, err := s.Pool.Exec(ctx, `UPDATE alert_outbox SET lease_until = $1 WHERE alert_id = $2 AND lease_until <= $3`,
		backend.FormatTime(until), alertID, backend.FormatTime(due))
	if err != nil {
		return false, s.errf("claim outbox alert", err)
	}
	return tag.RowsAffected() == 1, nil
}

// DeleteOutboxAlert removes an alert whose delivery ended.
func (s *Store) DeleteOutboxAlert(ctx context.Context, alertID string) error {
	if _, err := s.Pool.Exec(ctx, `DELETE FROM alert_outbox WHERE alert_id = $1`, alertID); err != nil {
		return s.errf("delete outbox alert", err)
	}
	return nil
}
