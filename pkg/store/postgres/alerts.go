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
