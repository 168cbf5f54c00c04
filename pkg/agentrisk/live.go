package agentrisk

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Live rescores agents as their events arrive (the live path of lf serve).
// It keeps, per tenant, what the anomaly component needs of every agent (the
// hour and injection buckets of its recent window), so that rescoring the
// agents an ingest touched costs their own aggregates plus one pass over
// their peers' buckets, not a recalculation of the tenant.
//
// The components come out exactly as a full recalculation at the same time
// would compute them: the touched agents are scored from their stored
// aggregate (read after the ingest committed) by the same functions
// (scoreDecoded, featuresAt, scoreAnomaly), and the peers' features are computed
// from the same buckets at the same reference time. Live scores are not
// written to the store: the periodic recalculation stays the authoritative
// pass (it also rescores agents that had no events, whose scores only decay).
type Live struct {
	e       *Engine
	mu      sync.Mutex
	tenants map[string]*liveTenant
	inj     []injObs // scoring's buffer, reused from agent to agent (under mu)
	calcs   []agentCalc
	group   []*agentCalc // and those of updateTenant, from update to update
}

// liveReloadHours is how far the window may move on before a tenant's live
// state is reloaded (and pruned).
const liveReloadHours = 24

type liveTenant struct {
	cfg    *RiskConfig
	agents map[string]*liveAgent
	keep   int32 // buckets before this hour were dropped; an older reference time reloads the tenant
}

// liveAgent is one agent as a peer: its identity and the buckets of its
// recent hours (tools by index, as in its aggregate).
type liveAgent struct {
	in      scoreInput // blob nil
	firstAt string     // FirstEventAt, to leave out agents with no event at or before T
	a       *agg       // tools, hours and inj only, from keep on
	hiTool  []bool

	// The agent as a peer at score time refAt (features as of refAt minus
	// the peer lag), kept so that updates at the same score time (the server
	// scores at whole seconds) recompute only the touched agents.
	refAt       time.Time
	refFeatures [5]float64
	established bool
}

// LiveScore is one agent rescored by the live path.
type LiveScore struct {
	TenantID   string
	AgentID    string
	AgentName  string
	Score      int
	Tier       Tier
	At         time.Time
	Components []Component
}

// NewLive returns an empty live state on the engine; tenants are loaded on
// their first update.
func (e *Engine) NewLive() *Live {
	return &Live{e: e, tenants: map[string]*liveTenant{}}
}

func sortRefs(rs []AgentRef) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].TenantID != rs[j].TenantID {
			return rs[i].TenantID < rs[j].TenantID
		}
		return rs[i].AgentID < rs[j].AgentID
	})
}

// Update rescores the agents in refs at time at from their stored aggregates
// (call it after the ingest that touched them committed) and returns their
// scores, sorted by tenant and agent. Agents without an event at or before at
// are left out.
func (l *Live) Update(ctx context.Context, refs []AgentRef, at time.Time) ([]LiveScore, error) {
	refs = append([]AgentRef(nil), refs...)
	sortRefs(refs)
	rows, err := l.readAggregates(ctx, refs)
	if err != nil {
		return nil, err
	}
	ws := make([]Written, len(rows))
	for i := range rows {
		ws[i] = WrittenRow(rows[i])
	}
	return l.UpdateRows(ctx, ws, at)
}

// UpdateRows is Update for aggregates the caller already has: the rows an
// ingest wrote (Engine.IngestWritten), one per agent, sorted by tenant and
// agent; for an agent of several ingests, the row of the latest. It reads
// nothing back (only a tenant's other agents on its first update), so the
// live path costs no store transaction of its own, and decodes none of the
// rows the ingest handed over decoded. It releases the rows (Written.Release).
func (l *Live) UpdateRows(ctx context.Context, rows []Written, at time.Time) ([]LiveScore, error) {
	defer func() {
		for i := range rows {
			rows[i].Release() // scored: the engine may merge into them again
		}
	}()
	at = at.UTC()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LiveScore
	for start := 0; start < len(rows); {
		end := start
		for end < len(rows) && rows[end].TenantID == rows[start].TenantID {
			end++
		}
		scores, err := l.updateTenant(ctx, rows[start].TenantID, rows[start:end], at)
		if err != nil {
			return nil, err
		}
		out = append(out, scores...)
		start = end
	}
	return out, nil
}

// readAggregates reads the current aggregates of refs (distinct, sorted) in
// one transaction; unknown agents are skipped.
func (l *Live) readAggregates(ctx context.Context, refs []AgentRef) ([]store.AgentRow, error) {
	var rows []store.AgentRow
	err := l.e.st.Update(ctx, func(tx store.Tx) error {
		var prev AgentRef
		for i, r := range refs {
			if i > 0 && r == prev {
				continue
			}
			prev = r
			row, ok, err := tx.AgentAggregate(ctx, r.TenantID, r.AgentID)
			if err != nil {
				return err
			}
			if ok {
				rows = append(rows, row)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("agentrisk: live update: %w", err)
	}
	return rows, nil
}

func inputOf(r *store.AgentRow) scoreInput {
	in := scoreInput{tenant: r.TenantID, agent: r.AgentID, name: r.AgentName, blob: r.Agg, resetHour: math.MinInt32}
	in.firstHour = int32(floorDiv(parseTime(r.FirstEventAt).Unix(), 3600))
	if r.BaselineResetAt != "" {
		in.resetHour = int32(floorDiv(parseTime(r.BaselineResetAt).Unix(), 3600))
	}
	return in
}

// tenant returns the tenant's live state, loading every agent of it (one read
// of the store) when it is not loaded or was pruned past c's reference time.
func (l *Live) tenant(ctx context.Context, tenant string, c *clock, cfg *RiskConfig) (*liveTenant, error) {
	// Reloaded once a day as well, which drops the buckets that left the
	// window since (touched agents keep theirs from t.keep on).
	if t := l.tenants[tenant]; t != nil && t.keep <= c.ref.lo && c.ref.lo-t.keep <= liveReloadHours && sameConfig(t.cfg, cfg) {
		t.cfg = cfg // thresholds and weights may have changed; they only matter for the touched agents
		return t, nil
	}
	rows, err := l.e.st.Agents(ctx, tenant)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: live update: %w", err)
	}
	t := &liveTenant{cfg: cfg, agents: make(map[string]*liveAgent, len(rows)), keep: c.ref.lo}
	for i := range rows {
		w := WrittenRow(rows[i])
		la, _, err := t.agentOf(&w)
		if err != nil {
			return nil, err
		}
		t.agents[la.in.agent] = la
	}
	l.tenants[tenant] = t
	return t, nil
}

// agentOf keeps what the agent needs as a peer: the buckets from t.keep on.
// It also returns the whole decoded aggregate.
func (t *liveTenant) agentOf(r *Written) (*liveAgent, *agg, error) {
	full, err := r.decoded()
	if err != nil {
		return nil, nil, fmt.Errorf("%w (tenant %s, agent %s)", err, r.TenantID, r.AgentID)
	}
	// The tool dictionary is only ever appended to: shared, capped. The
	// buckets are copied when older hours would be kept alive, and when
	// the aggregate is lent (later ingests merge into it).
	a := &agg{tools: full.tools[:len(full.tools):len(full.tools)]}
	i := sort.Search(len(full.hours), func(i int) bool { return full.hours[i].hour >= t.keep })
	j := sort.Search(len(full.inj), func(i int) bool { return full.inj[i].hour >= t.keep })
	a.hours, a.inj = full.hours, full.inj
	if i > 0 || j > 0 || r.ent != nil {
		// Into the buffers of the agent's previous state when it has one:
		// they are the live path's own (copies, or a row it decoded), and
		// nothing else refers to them once it is replaced.
		var hours []hourTool
		var inj []injBin
		if old := t.agents[r.AgentID]; old != nil {
			hours, inj = old.a.hours[:0], old.a.inj[:0]
		}
		a.hours = append(hours, full.hours[i:]...)
		a.inj = append(inj, full.inj[j:]...)
	}
	in := inputOf(&r.AgentRow)
	in.blob = nil
	return &liveAgent{in: in, firstAt: r.FirstEventAt, a: a, hiTool: highImpactTools(t.cfg, a)}, full, nil
}

func (l *Live) updateTenant(ctx context.Context, tenant string, rows []Written, at time.Time) ([]LiveScore, error) {
	cfg, err := l.e.getRiskConfig(ctx, tenant)
	if err != nil {
		return nil, err
	}
	c := newClock(at, cfg.DecayHalfLifeHours)
	t, err := l.tenant(ctx, tenant, c, &cfg)
	if err != nil {
		return nil, err
	}
	atStr := store.FormatTime(at)
	type touchedAgent struct {
		in   scoreInput
		full *agg
	}
	touched := make(map[string]*touchedAgent, len(rows))
	for i := range rows {
		la, full, err := t.agentOf(&rows[i])
		if err != nil {
			return nil, err
		}
		t.agents[la.in.agent] = la
		if rows[i].FirstEventAt <= atStr {
			touched[la.in.agent] = &touchedAgent{inputOf(&rows[i].AgentRow), full}
		}
	}
	// Every agent of the tenant with an event at or before at, as the full
	// pass would see it: the touched ones scored in full, the others as peers.
	calcs := l.calcs[:0]
	defer func() { clear(calcs); l.calcs = calcs[:0] }()
	for _, la := range t.agents {
		if la.firstAt > atStr {
			continue
		}
		if ta := touched[la.in.agent]; ta != nil {
			calc := scoreDecodedWith(t.cfg, c, &ta.in, ta.full, &l.inj)
			la.refAt, la.refFeatures, la.established = at, calc.refFeatures, calc.established
			calcs = append(calcs, calc)
			continue
		}
		if !la.refAt.Equal(at) {
			la.refFeatures, la.established = peerFeatures(c, &la.in, la.a, la.hiTool)
			la.refAt = at
		}
		calcs = append(calcs, agentCalc{in: &la.in, peerOnly: true, refFeatures: la.refFeatures, established: la.established})
	}
	group := l.group[:0]
	defer func() { clear(group); l.group = group[:0] }()
	for i := range calcs {
		if calcs[i].err != nil {
			return nil, calcs[i].err
		}
		group = append(group, &calcs[i])
	}
	scoreAnomaly(group)
	var out []LiveScore
	for _, calc := range group {
		if calc.peerOnly {
			continue
		}
		calc.score = finalScore(t.cfg, &calc.comps)
		out = append(out, LiveScore{
			TenantID: tenant, AgentID: calc.in.agent, AgentName: calc.in.name,
			Score: calc.score, Tier: tierFor(t.cfg, calc.score), At: at, Components: append([]Component(nil), calc.comps[:]...),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AgentID < out[j].AgentID })
	return out, nil
}

// sameConfig tells whether two configs score the same (the live state keeps
// the high-impact flags of the tools and the half-life of the clock).
func sameConfig(a, b *RiskConfig) bool {
	if a.DecayHalfLifeHours != b.DecayHalfLifeHours || len(a.HighImpactTools) != len(b.HighImpactTools) {
		return false
	}
	for i := range a.HighImpactTools {
		if a.HighImpactTools[i] != b.HighImpactTools[i] {
			return false
		}
	}
	return true
}
