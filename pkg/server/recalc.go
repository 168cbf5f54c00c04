package server

import (
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/store"
)

// recalculator runs recalculations one at a time per tenant: the background
// job and on-demand requests share each tenant's mutex, so two runs of a
// tenant never overlap, while tenants do not wait for each other (the
// anomaly component compares an agent with its tenant's peers only, so
// tenants are scored apart anyway). After each run it evaluates the alert
// rules on the changes, hands fired alerts to the dispatcher (which never
// blocks) and refreshes the verdict state.
type recalculator struct {
	s       *Server
	all     sync.RWMutex // held for reading by every run; shutdown takes it to wait for them
	locksMu sync.Mutex
	locks   map[string]*sync.Mutex // by tenant ("" = every tenant at once, lf agents recalc's way)
	running atomic.Int32           // runs in progress
	waiting atomic.Int32           // runs waiting for their tenant's lock
	leader  atomic.Bool            // this replica holds the background recalculation lock

	statMu  sync.Mutex
	lastRun time.Time
	lastErr error
	runs    int
}

// lockOf returns the mutex of a tenant's runs.
func (r *recalculator) lockOf(tenant string) *sync.Mutex {
	r.locksMu.Lock()
	defer r.locksMu.Unlock()
	if r.locks == nil {
		r.locks = map[string]*sync.Mutex{}
	}
	m := r.locks[tenant]
	if m == nil {
		m = &sync.Mutex{}
		r.locks[tenant] = m
	}
	return m
}

// wait waits for every run in progress (shutdown).
func (r *recalculator) wait() {
	r.all.Lock()
	r.all.Unlock() //nolint:staticcheck // an empty critical section is the point
}

// run recalculates tenant ("" = all) and agent ("" = all of the tenant) at
// score time at (zero: the server's score time).
// The recalculation itself is not cancelled by ctx: a shutdown waits for it
// to finish rather than abandoning it (the store's transaction keeps a
// killed process consistent either way).
func (r *recalculator) run(ctx context.Context, tenant, agent string, at time.Time) ([]agentrisk.Change, error) {
	r.all.RLock()
	defer r.all.RUnlock()
	mu := r.lockOf(tenant)
	r.waiting.Add(1)
	mu.Lock()
	r.waiting.Add(-1)
	defer mu.Unlock()
	r.running.Add(1)
	defer r.running.Add(-1)
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
		n, err := r.runAll(ctx)
		if err != nil {
			r.s.logf("background recalculation: %v", err)
			continue
		}
		r.s.logf("background recalculation: %d agents", n)
	}
}

// runAll recalculates every tenant, one after the other, each under its
// own lock, so an on-demand run of one tenant waits at most for that
// tenant's part; it returns how many agents were scored.
func (r *recalculator) runAll(ctx context.Context) (int, error) {
	tenants, err := r.s.engine.Tenants(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var firstErr error
	for _, t := range tenants {
		if ctx.Err() != nil {
			break
		}
		changes, err := r.run(ctx, t, "", time.Time{})
		if err != nil {
			r.s.logf("background recalculation of tenant %s: %v", t, err)
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		n += len(changes)
	}
	return n, firstErr
}
