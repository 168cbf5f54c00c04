package sqlite

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// Alert rules, the crossing state of each (rule, agent) and the delivery
// attempts (schema/30_alerts.sql): the rules and deliveries are sqlstore's.

// AlertStates reads and writes whether agents are above rules' thresholds
// inside one transaction.
type AlertStates struct{ sqlstore.AlertStates }

// AlertStates returns the crossing states of the transaction.
func (t *Tx) AlertStates(ctx context.Context) (backend.AlertStates, error) {
	return &AlertStates{sqlstore.NewAlertStates(t.q, t.st.Path)}, nil
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
