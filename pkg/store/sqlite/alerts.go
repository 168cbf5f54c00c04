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
type AlertStates struct{ t *Tx }

// AlertStates returns the crossing states of the transaction.
func (t *Tx) AlertStates(ctx context.Context) (backend.AlertStates, error) {
	return &AlertStates{t: t}, nil
}

// Above tells whether the agent was above the rule; known is false when no
// state was stored yet.
func (a *AlertStates) Above(ctx context.Context, tenantID, ruleID, agentID string) (above, known bool, err error) {
	return sqlstore.AlertAbove(ctx, a.t.q, a.t.st.Path, tenantID, ruleID, agentID)
}

// Set records whether the agent is above the rule at time at (the time
// since which it is so changes only when the state does).
func (a *AlertStates) Set(ctx context.Context, tenantID, ruleID, agentID string, above bool, at time.Time) error {
	return sqlstore.SetAlertAbove(ctx, a.t.q, a.t.st.Path, tenantID, ruleID, agentID, above, at)
}

// Close does nothing: the statements go with the transaction.
func (a *AlertStates) Close() {}

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
