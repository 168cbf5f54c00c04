package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// Alert rules, the crossing state of each (rule, agent) and the delivery
// attempts (schema/30_alerts.sql). Rules are stored as the domain's JSON.

// AlertRule returns the stored JSON of a tenant's rule; ok is false when
// there is none.
func (t *Tx) AlertRule(ctx context.Context, tenantID, id string) (body string, ok bool, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT body FROM alert_rules WHERE tenant_id = ? AND id = ?`, tenantID, id).Scan(&body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store %s: alert rule %s/%s: %w", t.st.Path, tenantID, id, err)
	}
	return body, true, nil
}

// PutAlertRule creates or replaces a rule (keeping the first created time)
// and forgets its crossing state.
func (t *Tx) PutAlertRule(ctx context.Context, tenantID, id, body string, created time.Time) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO alert_rules (tenant_id, id, body, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id, id) DO UPDATE SET body = excluded.body`,
		tenantID, id, body, backend.FormatTime(created)); err != nil {
		return fmt.Errorf("store %s: put alert rule %s/%s: %w", t.st.Path, tenantID, id, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM alert_state WHERE tenant_id = ? AND rule_id = ?`, tenantID, id); err != nil {
		return fmt.Errorf("store %s: put alert rule %s/%s: %w", t.st.Path, tenantID, id, err)
	}
	return nil
}

// DeleteAlertRule removes a rule and its crossing state, telling whether
// there was one.
func (t *Tx) DeleteAlertRule(ctx context.Context, tenantID, id string) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM alert_rules WHERE tenant_id = ? AND id = ?`, tenantID, id)
	if err != nil {
		return false, fmt.Errorf("store %s: delete alert rule %s/%s: %w", t.st.Path, tenantID, id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM alert_state WHERE tenant_id = ? AND rule_id = ?`, tenantID, id); err != nil {
		return false, fmt.Errorf("store %s: delete alert rule %s/%s: %w", t.st.Path, tenantID, id, err)
	}
	return true, nil
}

// AlertRules returns the stored JSON of the rules of a tenant ("" for every
// tenant), ordered by tenant and id.
func (s *Store) AlertRules(ctx context.Context, tenantID string) ([]string, error) {
	q := `SELECT body FROM alert_rules`
	var args []any
	if tenantID != "" {
		q += ` WHERE tenant_id = ?`
		args = append(args, tenantID)
	}
	q += ` ORDER BY tenant_id, id`
	rows, err := s.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: alert rules: %w", s.Path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("store %s: alert rules: %w", s.Path, err)
		}
		out = append(out, body)
	}
	return out, rows.Err()
}

// AlertStates reads and writes whether agents are above rules' thresholds
// inside one transaction. Close it before the transaction ends.
type AlertStates struct {
	st       *Store
	get, put *sql.Stmt
}

// AlertStates prepares the crossing-state statements.
func (t *Tx) AlertStates(ctx context.Context) (backend.AlertStates, error) {
	get, err := t.tx.PrepareContext(ctx, `SELECT above FROM alert_state WHERE tenant_id = ? AND rule_id = ? AND agent_id = ?`)
	if err != nil {
		return nil, fmt.Errorf("store %s: alert state: %w", t.st.Path, err)
	}
	put, err := t.tx.PrepareContext(ctx, `INSERT INTO alert_state (tenant_id, rule_id, agent_id, above, since) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, rule_id, agent_id) DO UPDATE SET above = excluded.above,
		since = CASE WHEN alert_state.above = excluded.above THEN alert_state.since ELSE excluded.since END`)
	if err != nil {
		get.Close()
		return nil, fmt.Errorf("store %s: alert state: %w", t.st.Path, err)
	}
	return &AlertStates{st: t.st, get: get, put: put}, nil
}

// Above tells whether the agent was above the rule; known is false when no
// state was stored yet.
func (a *AlertStates) Above(ctx context.Context, tenantID, ruleID, agentID string) (above, known bool, err error) {
	var v int
	err = a.get.QueryRowContext(ctx, tenantID, ruleID, agentID).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, false, nil
	case err != nil:
		return false, false, fmt.Errorf("store %s: read alert state: %w", a.st.Path, err)
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
	if _, err := a.put.ExecContext(ctx, tenantID, ruleID, agentID, v, backend.FormatTime(at)); err != nil {
		return fmt.Errorf("store %s: write alert state: %w", a.st.Path, err)
	}
	return nil
}

// Close releases the statements.
func (a *AlertStates) Close() {
	a.get.Close()
	a.put.Close()
}

// RecordAlertDelivery appends a delivery attempt.
func (s *Store) RecordAlertDelivery(ctx context.Context, d backend.AlertDelivery) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO alert_deliveries
		(tenant_id, rule_id, agent_id, alert_id, channel, target, attempt, status, status_code, error, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.TenantID, d.RuleID, d.AgentID, d.AlertID, d.Channel, d.Target, d.Attempt, d.Status, d.StatusCode, d.Error, backend.FormatTime(d.Time))
	if err != nil {
		return fmt.Errorf("store %s: record alert delivery: %w", s.Path, err)
	}
	return nil
}

// AlertDeliveries returns the recorded attempts of a tenant ("" for all),
// newest first, at most limit (0 for all).
func (s *Store) AlertDeliveries(ctx context.Context, tenantID string, limit int) ([]backend.AlertDelivery, error) {
	q := `SELECT seq, tenant_id, rule_id, agent_id, alert_id, channel, target, attempt, status, status_code, error, created_at FROM alert_deliveries`
	var args []any
	if tenantID != "" {
		q += ` WHERE tenant_id = ?`
		args = append(args, tenantID)
	}
	q += ` ORDER BY seq DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	out, err := rowset.Deliveries(s.DB.QueryContext(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("store %s: alert deliveries: %w", s.Path, err)
	}
	return out, nil
}

// Swap records the state and returns the one it replaced. SQLite has one
// writer at a time and a transaction that read a row another writer changed
// since cannot commit, so reading then writing inside the transaction is
// atomic.
func (a *AlertStates) Swap(ctx context.Context, tenantID, ruleID, agentID string, above bool, at time.Time) (prev, known bool, err error) {
	prev, known, err = a.Above(ctx, tenantID, ruleID, agentID)
	if err != nil {
		return false, false, err
	}
	return prev, known, a.Set(ctx, tenantID, ruleID, agentID, above, at)
}

// PutOutboxAlert adds a fired alert to the outbox (schema/90_alert_outbox.sql).
func (t *Tx) PutOutboxAlert(ctx context.Context, a backend.OutboxAlert) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO alert_outbox (alert_id, tenant_id, rule_id, agent_id, body, created_at, lease_until)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, a.AlertID, a.TenantID, a.RuleID, a.AgentID, a.Body, backend.FormatTime(a.CreatedAt), backend.FormatTime(a.LeaseUntil)); err != nil {
		return fmt.Errorf("store %s: put outbox alert: %w", t.st.Path, err)
	}
	return nil
}

// OutboxAlerts returns up to limit outbox alerts whose lease ended at or
// before due, oldest first.
func (s *Store) OutboxAlerts(ctx context.Context, due time.Time, limit int) ([]backend.OutboxAlert, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT alert_id, tenant_id, rule_id, agent_id, body, created_at, lease_until FROM alert_outbox
		WHERE lease_until <= ? ORDER BY created_at, alert_id LIMIT ?`, backend.FormatTime(due), limit)
	if err != nil {
		return nil, fmt.Errorf("store %s: outbox: %w", s.Path, err)
	}
	defer rows.Close()
	var out []backend.OutboxAlert
	for rows.Next() {
		var a backend.OutboxAlert
		var created, lease string
		if err := rows.Scan(&a.AlertID, &a.TenantID, &a.RuleID, &a.AgentID, &a.Body, &created, &lease); err != nil {
			return nil, fmt.Errorf("store %s: outbox: %w", s.Path, err)
		}
		a.CreatedAt, _ = time.Parse(backend.TimeFormat, created)
		a.LeaseUntil, _ = time.Parse(backend.TimeFormat, lease)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store %s: outbox: %w", s.Path, err)
	}
	return out, nil
}

// ClaimOutboxAlert leases an alert until until if its lease ended at or
// before due (one UPDATE: of two claims at once, one changes the row).
func (s *Store) ClaimOutboxAlert(ctx context.Context, alertID string, due, until time.Time) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE alert_outbox SET lease_until = ? WHERE alert_id = ? AND lease_until <= ?`,
		backend.FormatTime(until), alertID, backend.FormatTime(due))
	if err != nil {
		return false, fmt.Errorf("store %s: claim outbox alert: %w", s.Path, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// DeleteOutboxAlert removes an alert whose delivery ended.
func (s *Store) DeleteOutboxAlert(ctx context.Context, alertID string) error {
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM alert_outbox WHERE alert_id = ?`, alertID); err != nil {
		return fmt.Errorf("store %s: delete outbox alert: %w", s.Path, err)
	}
	return nil
}
