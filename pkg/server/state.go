package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
)

// verdictState keeps what POST /verdict needs in memory: every tenant's risk
// config and the state of every agent seen, so that a verdict never touches
// SQLite after the first request for an agent. It is refreshed after each
// recalculation, config change and release.
type verdictState struct {
	engine *agentrisk.Engine
	live   *liveUpdater

	// mu is held for reading by verdicts (map lookups) and for writing
	// only to put entries in or take them out: a live update applies all
	// its scores under one short lock, never while it computes.
	mu      sync.RWMutex
	gen     uint64 // bumped by every refresh, so a load that raced with one is not cached
	configs map[string]agentrisk.RiskConfig
	// agents by tenant, then agent id: a verdict looks its agent up by the
	// id's bytes in the request body without making a string of them.
	agents  map[string]map[string]agentEntry
	nAgents int
}

type agentKey struct{ tenant, agent string }

type agentEntry struct {
	state agentrisk.AgentState
	known bool // false: the agent has no score yet (decided as score 0)
	// liveRead is when the live path read the aggregates this score was
	// computed from (zero: the score comes from the store).
	liveRead time.Time
}

func newVerdictState(e *agentrisk.Engine) *verdictState {
	v := &verdictState{engine: e, configs: map[string]agentrisk.RiskConfig{}, agents: map[string]map[string]agentEntry{}}
	v.live = newLiveUpdater(e.NewLive())
	return v
}

// merge combines a cached entry with the same agent freshly loaded from the
// store after a recalculation or a release: a live score computed from newer
// aggregates than the recalculation read stays (with the stored override);
// otherwise the stored score wins, keeping the earlier tierSince when the
// live path already moved the agent into the same tier (so that a grace
// period does not start twice).
func (v *verdictState) merge(old, loaded agentEntry) agentEntry {
	if old.liveRead.IsZero() {
		return loaded
	}
	// The stored score is the newer one when this process's latest
	// recalculation, or the one that stored it (another replica's: its
	// score time, to the second, is when it began), read the aggregates
	// after the live path did.
	lastRead, lastAt := v.engine.LastRecalcOf(loaded.state.TenantID)
	ours := loaded.state.CalculatedAt.Equal(lastAt)
	if old.liveRead.After(lastRead) && (!loaded.known || ours || old.liveRead.After(loaded.state.CalculatedAt.Add(time.Second))) {
		old.state.OverrideTier = loaded.state.OverrideTier
		return old
	}
	if loaded.known && old.state.Tier == loaded.state.Tier && old.state.TierSince.Before(loaded.state.TierSince) {
		loaded.state.TierSince = old.state.TierSince
	}
	return loaded
}

// applyLive puts the live path's scores into the cache: score, tier, and
// tierSince = now when the tier changed. read is when the live path read
// the aggregates. Agents not cached yet are loaded first (for their stored
// override and tier).
func (v *verdictState) applyLive(ctx context.Context, scores []agentrisk.LiveScore, read, now time.Time) error {
	// Agents not cached yet are loaded first, outside the lock.
	prev := make(map[agentKey]agentEntry, len(scores))
	for _, sc := range scores {
		k := agentKey{sc.TenantID, sc.AgentID}
		v.mu.RLock()
		e, ok := v.get(k)
		v.mu.RUnlock()
		if !ok {
			var err error
			if e, err = v.load(ctx, sc.TenantID, sc.AgentID); err != nil {
				return err
			}
		}
		prev[k] = e
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gen++
	for _, sc := range scores {
		k := agentKey{sc.TenantID, sc.AgentID}
		e, ok := v.get(k)
		if !ok {
			e = prev[k] // dropped meanwhile by a refresh
		}
		if !e.known || e.state.Tier != sc.Tier {
			e.state.TierSince = now
		}
		e.state.TenantID, e.state.AgentID = sc.TenantID, sc.AgentID
		e.state.Score, e.state.Tier, e.state.CalculatedAt = sc.Score, sc.Tier, sc.At
		e.known, e.liveRead = true, read
		v.put(k, e)
	}
	return nil
}

// get, put and del work on the agent cache (v.mu held).
func (v *verdictState) get(k agentKey) (agentEntry, bool) {
	e, ok := v.agents[k.tenant][k.agent]
	return e, ok
}

func (v *verdictState) put(k agentKey, e agentEntry) {
	m := v.agents[k.tenant]
	if m == nil {
		m = map[string]agentEntry{}
		v.agents[k.tenant] = m
	}
	if _, ok := m[k.agent]; !ok {
		v.nAgents++
	}
	m[k.agent] = e
}

func (v *verdictState) del(k agentKey) {
	if m := v.agents[k.tenant]; m != nil {
		if _, ok := m[k.agent]; ok {
			delete(m, k.agent)
			v.nAgents--
		}
	}
}

// config returns the tenant's risk config, loading it once.
func (v *verdictState) config(ctx context.Context, tenant string) (agentrisk.RiskConfig, error) {
	v.mu.RLock()
	cfg, ok := v.configs[tenant]
	gen := v.gen
	v.mu.RUnlock()
	if ok {
		return cfg, nil
	}
	cfg, err := v.engine.GetRiskConfig(ctx, tenant)
	if err != nil {
		return cfg, err
	}
	v.mu.Lock()
	if v.gen == gen {
		v.configs[tenant] = cfg
	}
	v.mu.Unlock()
	return cfg, nil
}

// agent returns the agent's cached state, loading it once. Unknown agents
// are cached too (as unknown) so that a stream of requests for an agent
// without a score does not hit the store either.
func (v *verdictState) agent(ctx context.Context, tenant, agent string) (agentEntry, error) {
	return v.agentBytes(ctx, tenant, nil, agent)
}

// agentBytes is agent for the id raw (when not nil) or agent: a cached
// agent costs no allocation; its entry's state.AgentID is the id.
func (v *verdictState) agentBytes(ctx context.Context, tenant string, raw []byte, agent string) (agentEntry, error) {
	v.mu.RLock()
	var e agentEntry
	var ok bool
	if raw != nil {
		e, ok = v.agents[tenant][string(raw)]
	} else {
		e, ok = v.agents[tenant][agent]
	}
	gen := v.gen
	v.mu.RUnlock()
	if ok {
		return e, nil
	}
	if raw != nil {
		agent = string(raw)
	}
	k := agentKey{tenant, agent}
	e, err := v.load(ctx, tenant, agent)
	if err != nil {
		return e, err
	}
	v.mu.Lock()
	// Scored agents are bounded by the store; unknown ids are not, so they
	// are cached only up to a limit (past it they cost a store read each).
	if v.gen == gen && (e.known || v.nAgents < maxCachedAgents) {
		v.put(k, e)
	}
	v.mu.Unlock()
	return e, nil
}

// maxCachedAgents bounds the verdict cache against a flood of made-up agent
// ids, in bytes (verdictCacheBytes, body.go).
const maxCachedAgents = verdictCacheBytes / maxCacheEntryBytes

func (v *verdictState) load(ctx context.Context, tenant, agent string) (agentEntry, error) {
	st, err := v.engine.AgentState(ctx, tenant, agent, time.Now())
	if errors.Is(err, agentrisk.ErrNotFound) {
		return agentEntry{state: agentrisk.AgentState{TenantID: tenant, AgentID: agent}}, nil
	}
	if err != nil {
		return agentEntry{}, err
	}
	st.SecondsInTier = nil // recomputed per request from TierSince
	return agentEntry{state: st, known: true}, nil
}

// refreshAgent reloads one agent (after a release or a one-agent recalculation).
func (v *verdictState) refreshAgent(ctx context.Context, tenant, agent string) error {
	e, err := v.load(ctx, tenant, agent)
	if err != nil {
		return err
	}
	k := agentKey{tenant, agent}
	v.mu.Lock()
	v.gen++
	if old, ok := v.get(k); ok {
		e = v.merge(old, e)
	}
	v.put(k, e)
	v.mu.Unlock()
	return nil
}

// refresh drops the cached config and agents of tenant ("" = all) and
// reloads the agents in changes, so the next verdicts see the new scores.
func (v *verdictState) refresh(ctx context.Context, tenant string, changes []agentrisk.Change) error {
	v.mu.Lock()
	v.gen++
	var live []agentKey
	for t, m := range v.agents {
		if tenant != "" && t != tenant {
			continue
		}
		for a, e := range m {
			if e.liveRead.IsZero() {
				v.del(agentKey{t, a})
			} else {
				live = append(live, agentKey{t, a}) // merged with the stored state below
			}
		}
	}
	for t := range v.configs {
		if tenant == "" || t == tenant {
			delete(v.configs, t)
		}
	}
	v.mu.Unlock()
	done := make(map[agentKey]bool, len(changes))
	for _, c := range changes {
		done[agentKey{c.TenantID, c.AgentID}] = true
		if err := v.refreshAgent(ctx, c.TenantID, c.AgentID); err != nil {
			return err
		}
	}
	// Live entries of agents the changes do not name (another replica
	// recalculated, or notifications were missed): compare with the store.
	for _, k := range live {
		if !done[k] {
			if err := v.refreshAgent(ctx, k.tenant, k.agent); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropConfig forgets a tenant's config after PUT risk-config.
func (v *verdictState) dropConfig(tenant string) {
	v.mu.Lock()
	v.gen++
	delete(v.configs, tenant)
	v.mu.Unlock()
}
