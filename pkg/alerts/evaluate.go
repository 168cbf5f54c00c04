package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Change is one agent's score before and after a recalculation.
type Change struct {
	TenantID  string
	AgentID   string
	AgentName string
	OldScore  float64
	NewScore  float64
	OldTier   string
	NewTier   string
}

// Alert is a fired rule for one agent: the webhook body and the email's
// content. Rule travels with it for delivery and is not serialized.
type Alert struct {
	AlertID   string    `json:"alertId"`
	RuleID    string    `json:"ruleId"`
	TenantID  string    `json:"tenantId"`
	AgentID   string    `json:"agentId"`
	AgentName string    `json:"agentName"`
	OldScore  float64   `json:"oldScore"`
	NewScore  float64   `json:"newScore"`
	OldTier   string    `json:"oldTier"`
	NewTier   string    `json:"newTier"`
	Condition string    `json:"condition"`
	Time      time.Time `json:"time"`
	Rule      Rule      `json:"-"`
	stored    bool      // in the outbox already (written by Evaluate or the sweeper's)
}

// Evaluate checks changes against the enabled rules of their tenants and
// returns the alerts that fire, updating the crossing state in one
// transaction. The state is claimed with a conditional write (AlertStates
// Swap), so replicas of lf serve on one store fire a crossing once; each
// fired alert is written to the outbox in the same transaction (delivered at
// least once, see Dispatcher). A rule fires when the agent is on its firing side now and
// was not at the previous evaluation (for an agent the rule has never seen,
// "before" is the change's old score and tier).
func Evaluate(ctx context.Context, st *store.Store, changes []Change, now time.Time) ([]Alert, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	byTenant := map[string][]Rule{}
	for _, c := range changes {
		if _, ok := byTenant[c.TenantID]; ok {
			continue
		}
		rules, err := ListRules(ctx, st, c.TenantID)
		if err != nil {
			return nil, err
		}
		byTenant[c.TenantID] = rules
	}
	var fired []Alert
	err := st.Update(ctx, func(tx store.Tx) error {
		fired = fired[:0]
		states, err := tx.AlertStates(ctx)
		if err != nil {
			return fmt.Errorf("alerts: %w", err)
		}
		defer states.Close()
		for _, c := range changes {
			for _, r := range byTenant[c.TenantID] {
				if r.Disabled {
					continue
				}
				// Swap claims the crossing: of replicas recalculating the
				// same agent at once, only one sees the state it replaces.
				now1 := r.above(c.NewScore, c.NewTier)
				prev, known, err := states.Swap(ctx, c.TenantID, r.ID, c.AgentID, now1, now)
				if err != nil {
					return fmt.Errorf("alerts: %w", err)
				}
				if !known {
					prev = r.above(c.OldScore, c.OldTier)
				}
				if now1 && !prev {
					a := Alert{
						AlertID: NewID("alr_"), RuleID: r.ID, TenantID: c.TenantID,
						AgentID: c.AgentID, AgentName: c.AgentName,
						OldScore: c.OldScore, NewScore: c.NewScore, OldTier: c.OldTier, NewTier: c.NewTier,
						Condition: r.Condition(), Time: now.UTC(), Rule: r, stored: true,
					}
					// Written with the crossing it claims: a crash after
					// the commit leaves the alert to deliver, never lost.
					row, err := outboxRow(a, time.Now())
					if err == nil {
						err = tx.PutOutboxAlert(ctx, row)
					}
					if err != nil {
						return fmt.Errorf("alerts: %w", err)
					}
					fired = append(fired, a)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fired, nil
}
