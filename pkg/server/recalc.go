package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/store"
)

// recalculator runs recalculations one at a time: the background job and
// on-demand requests share its mutex, so two never overlap. After each run
// it evaluates the alert rules on the changes, hands fired alerts to the
// dispatcher (which never blocks) and refreshes the verdict state.
type recalculator struct {
	s       *Server
	mu      sync.Mutex
	waiting atomic.Int32 // runs waiting for mu (on-demand requests during a run)
	leader  atomic.Bool  // this replica holds the background recalculation lock

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
	if len(changes) > 0 {
		// Other replicas drop what they cached of the tenant's agents.
		r.s.announce(ctx, changeScores, tenant, "")
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
//
// With replicas (a store coordinator), only the replica holding the named
// lock recalcLockName runs the background recalculation; the others try to
// take the lock at every tick, so when the holder dies (its session with the
// store ends, releasing the lock) another one takes over within an
// interval. The holder keeps the lock until it stops.
func (r *recalculator) loop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var lock store.Lock
	defer func() {
		if lock != nil {
			lock.Unlock(context.WithoutCancel(ctx))
			r.leader.Store(false)
		}
	}()
	waiting := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c := r.s.coord; c != nil {
			if lock != nil {
				select {
				case <-lock.Lost():
					r.s.logf("background recalculation: lost the lock (the connection to the store ended); another replica may take over")
					lock = nil
					r.leader.Store(false)
				default:
				}
			}
			if lock == nil {
				l, ok, err := c.TryLock(ctx, recalcLockName)
				if err != nil {
					r.s.logf("background recalculation: cannot take the lock: %v", err)
					continue
				}
				if !ok {
					if !waiting {
						r.s.logf("background recalculation: another replica runs it; this one takes over if that one stops")
						waiting = true
					}
					continue
				}
				lock, waiting = l, false
				r.leader.Store(true)
				r.s.logf("background recalculation: this replica runs it")
			}
		}
		changes, err := r.run(ctx, "", "", time.Time{})
		if err != nil {
			r.s.logf("background recalculation: %v", err)
			continue
		}
		r.s.logf("background recalculation: %d agents", len(changes))
	}
}
