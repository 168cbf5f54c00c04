package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
)

// recalculator runs recalculations one at a time: the background job and
// on-demand requests share its mutex, so two never overlap. After each run
// it evaluates the alert rules on the changes, hands fired alerts to the
// dispatcher (which never blocks) and refreshes the verdict state.
type recalculator struct {
	s       *Server
	mu      sync.Mutex
	waiting atomic.Int32 // runs waiting for mu (on-demand requests during a run)

	statMu  sync.Mutex
	lastRun time.Time
	lastErr error
	runs    int
}

// run recalculates tenant ("" = all) and agent ("" = all of the tenant) at
// score time at (zero: the server's score time).
// The recalculation itself is not cancelled by ctx: a shutdown waits for it
// to finish rather than abandoning it (the store's transaction keeps a
// killed process consistent either way).
func (r *recalculator) run(ctx context.Context, tenant, agent string, at time.Time) ([]agentrisk.Change, error) {
	r.waiting.Add(1)
	r.mu.Lock()
	r.waiting.Add(-1)
	defer r.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	now := at
	if now.IsZero() {
		now = r.s.scoreTime()
	}
	// The server keeps its snapshots and alerts; it records no agent_risk
	// evaluation run (lf agents recalc and lf run do).
	changes, err := agentrisk.Recalc(ctx, r.s.engine, agentrisk.RecalcOptions{Tenant: tenant, Agent: agent, At: now})
	r.statMu.Lock()
	r.lastRun, r.lastErr = now, err
	r.runs++
	r.statMu.Unlock()
	if err != nil {
		return nil, err
	}
	if agent != "" {
		for _, c := range changes {
			if err := r.s.state.refreshAgent(ctx, c.TenantID, c.AgentID); err != nil {
				return changes, err
			}
		}
	} else if err := r.s.state.refresh(ctx, tenant, changes); err != nil {
		return changes, err
	}
	ac := make([]alerts.Change, 0, len(changes))
	for _, c := range changes {
		ac = append(ac, alerts.Change{
			TenantID: c.TenantID, AgentID: c.AgentID, AgentName: c.AgentName,
			OldScore: float64(c.OldScore), NewScore: float64(c.NewScore),
			OldTier: string(c.OldTier), NewTier: string(c.NewTier),
		})
	}
	fired, err := alerts.Evaluate(ctx, r.s.store, ac, now)
	if err != nil {
		return changes, err
	}
	for _, a := range fired {
		r.s.logf("alert %s: rule %s fired for tenant %s agent %s (%s -> %s, score %g)", a.AlertID, a.RuleID, a.TenantID, a.AgentID, a.OldTier, a.NewTier, a.NewScore)
	}
	r.s.dispatcher.Enqueue(fired...)
	return changes, nil
}

// loop recalculates every agent every interval until ctx ends. A run in
// progress when ctx ends is finished first.
func (r *recalculator) loop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			changes, err := r.run(ctx, "", "", time.Time{})
			if err != nil {
				r.s.logf("background recalculation: %v", err)
				continue
			}
			r.s.logf("background recalculation: %d agents", len(changes))
		}
	}
}
