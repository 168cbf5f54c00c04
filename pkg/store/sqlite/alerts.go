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
