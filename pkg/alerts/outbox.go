package alerts

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// outboxRow is the outbox row of a, not leased (due at once).
func outboxRow(a Alert, now time.Time) (store.OutboxAlert, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return store.OutboxAlert{}, err
	}
	return store.OutboxAlert{
		AlertID: a.AlertID, TenantID: a.TenantID, RuleID: a.RuleID, AgentID: a.AgentID,
		Body: string(body), CreatedAt: now.UTC(),
	}, nil
}

// putOutbox writes an alert that did not come from Evaluate to the outbox.
func putOutbox(ctx context.Context, st *store.Store, a Alert, now time.Time) error {
	row, err := outboxRow(a, now)
	if err != nil {
		return err
	}
	return st.Update(ctx, func(tx store.Tx) error { return tx.PutOutboxAlert(ctx, row) })
}

// sweepLoop takes up, every Sweep, the outbox alerts that are not leased:
// those that did not fit in their tenant's queue, and those a process that
// died had taken (after RedeliverAfter). The first sweep runs at once.
func (d *Dispatcher) sweepLoop() {
	defer d.wg.Done()
	t := time.NewTicker(d.opt.Sweep)
	defer t.Stop()
	for {
		d.sweep()
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
	}
}

// sweep reads the due alerts of the outbox, oldest first, and queues those
// whose tenant has room; their rules are read again (a rule deleted since
// is a failed delivery).
func (d *Dispatcher) sweep() {
	now := time.Now()
	rows, err := d.st.OutboxAlerts(d.ctx, now, 4*d.opt.QueueSize)
	if err != nil {
		d.logf("alert outbox: %v", err)
		return
	}
	rules := map[string]map[string]Rule{}
	for _, row := range rows {
		if !d.hasRoom(row.TenantID, row.AlertID) {
			continue
		}
		ok, err := d.st.ClaimOutboxAlert(d.ctx, row.AlertID, now, now.Add(d.opt.RedeliverAfter))
		if err != nil || !ok {
			continue
		}
		var a Alert
		if err := json.Unmarshal([]byte(row.Body), &a); err != nil {
			d.logf("alert %s: unreadable in the outbox: %v", row.AlertID, err)
			_ = d.st.DeleteOutboxAlert(d.ctx, row.AlertID)
			continue
		}
		if rules[a.TenantID] == nil {
			rules[a.TenantID] = map[string]Rule{}
			list, err := ListRules(d.ctx, d.st, a.TenantID)
			if err != nil {
				d.logf("alert outbox: %v", err)
				return
			}
			for _, r := range list {
				rules[a.TenantID][r.ID] = r
			}
		}
		r, found := rules[a.TenantID][a.RuleID]
		a.Rule, a.stored = r, true
		if !found {
			a.Rule = Rule{ID: a.RuleID, TenantID: a.TenantID}
			d.fail(a, fmt.Sprintf("rule %q no longer exists", a.RuleID))
			_ = d.st.DeleteOutboxAlert(d.ctx, a.AlertID)
			continue
		}
		d.offer(a, true) // when it does not fit after all, offer makes it due again
	}
}

// hasRoom tells whether an alert of tenant that is not in memory yet could
// be queued now.
func (d *Dispatcher) hasRoom(tenant, id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, busy := d.inflight[id]
	return !d.closed && !busy && len(d.queues[tenant]) < d.opt.QueueSize
}
