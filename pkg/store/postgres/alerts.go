package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// Alert rules, the crossing state of each (rule, agent) and the delivery
// attempts (schema/30_alerts.sql): the rules and deliveries are sqlstore's.

// AlertStates reads and writes whether agents are above rules' thresholds
// inside one transaction. Above locks the row it reads until the
// transaction ends, so a replica deciding the same crossing waits for this
// one's decision.
type AlertStates struct {
	sqlstore.AlertStates
	t *Tx
}

// AlertStates returns the crossing states of the transaction.
func (t *Tx) AlertStates(ctx context.Context) (backend.AlertStates, error) {
	return &AlertStates{AlertStates: sqlstore.NewAlertStates(pgQuerier{t.tx}, t.st.loc), t: t}, nil
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
