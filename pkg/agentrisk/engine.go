package agentrisk

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

func parseTime(s string) time.Time {
	t, err := time.Parse(store.TimeFormat, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t.UTC()
}

func (e *Engine) recalculate(ctx context.Context, tenantID, agentID string, at time.Time) ([]Change, error) {
	at = at.UTC()
	if tenantID != "" {
		e.tenantRecalcs.Store(tenantID, &recalcMark{read: time.Now().UnixNano(), at: at.UnixNano()})
	} else {
		e.recalcAt.Store(at.UnixNano())
		e.recalcRead.Store(time.Now().UnixNano())
	}
	ins, err := e.loadInputs(ctx, tenantID, agentID, at)
	if err != nil {
		return nil, err
	}
	calcs, cfgs, err := e.scoreAll(ctx, ins, at)
	if err != nil {
		return nil, err
	}
	return e.storeScores(ctx, tenantID, agentID, at, calcs, cfgs)
}

// loadInputs reads the aggregates of the agents to score (all agents of the
// tenant, or of every tenant, since the anomaly compares peers).
func (e *Engine) loadInputs(ctx context.Context, tenantID, agentID string, at time.Time) ([]*scoreInput, error) {
	agents, err := e.st.Agents(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: recalculate: %w", err)
	}
	var ins []*scoreInput
	atStr := store.FormatTime(at)
	found := agentID == ""
	for _, a := range agents {
		in := scoreInput{tenant: a.TenantID, agent: a.AgentID, name: a.AgentName, blob: a.Agg}
		if in.agent == agentID {
			found = true
		}
		if a.FirstEventAt > atStr {
			continue // no events at or before at
		}
		in.firstHour = int32(floorDiv(parseTime(a.FirstEventAt).Unix(), 3600))
		in.resetHour = math.MinInt32
		if a.BaselineResetAt != "" {
			in.resetHour = int32(floorDiv(parseTime(a.BaselineResetAt).Unix(), 3600))
		}
		ins = append(ins, &in)
	}
	if !found {
		return nil, fmt.Errorf("agent %q: %w", agentID, ErrNotFound)
	}
	if tenantID != "" && len(ins) == 0 {
		n, _ := e.st.CountAgents(ctx, tenantID)
		if n == 0 {
			return nil, fmt.Errorf("tenant %q: %w", tenantID, ErrNotFound)
		}
	}
	return ins, nil
}

// scoreAll scores every input: own components in parallel, then the anomaly
// and the final score per tenant.
func (e *Engine) scoreAll(ctx context.Context, ins []*scoreInput, at time.Time) ([]agentCalc, map[string]*RiskConfig, error) {
	// Group by tenant; configs per tenant.
	var tenants []string
	byTenant := map[string][]*scoreInput{}
	for _, in := range ins {
		if _, ok := byTenant[in.tenant]; !ok {
			tenants = append(tenants, in.tenant)
		}
		byTenant[in.tenant] = append(byTenant[in.tenant], in)
	}
	cfgs := map[string]*RiskConfig{}
	for _, t := range tenants {
		c, err := e.getRiskConfig(ctx, t)
		if err != nil {
			return nil, nil, err
		}
		cfgs[t] = &c
	}

	// Score every agent (own components in parallel), then the anomaly per tenant.
	calcs := make([]agentCalc, len(ins))
	clocks := map[string]*clock{}
	for _, t := range tenants {
		clocks[t] = newClock(at, cfgs[t].DecayHalfLifeHours)
	}
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				in := ins[i]
				calcs[i] = scoreOwn(cfgs[in.tenant], clocks[in.tenant], in)
			}
		}()
	}
	for i := range ins {
		next <- i
	}
	close(next)
	wg.Wait()
	start := 0
	for start < len(calcs) {
		end := start
		var group []*agentCalc
		for end < len(calcs) && calcs[end].in.tenant == calcs[start].in.tenant {
			if calcs[end].err != nil {
				return nil, nil, calcs[end].err
			}
			group = append(group, &calcs[end])
			end++
		}
		scoreAnomaly(group)
		for _, c := range group {
			c.score = finalScore(cfgs[c.in.tenant], &c.comps)
		}
		start = end
	}
	return calcs, cfgs, nil
}

// storeScores writes the scores, snapshots and baselines of the agents asked
// for and returns their changes.
func (e *Engine) storeScores(ctx context.Context, tenantID, agentID string, at time.Time, calcs []agentCalc, cfgs map[string]*RiskConfig) ([]Change, error) {
	atStr := store.FormatTime(at)
	var changes []Change
	err := e.st.Update(ctx, func(tx store.Tx) error {
		olds, err := tx.AgentScores(ctx, tenantID)
		if err != nil {
			return err
		}
		old := make(map[agentKey]store.AgentScoreRow, len(olds))
		for _, o := range olds {
			old[agentKey{o.TenantID, o.AgentID}] = o
		}
		w, err := tx.ScoreWriter(ctx)
		if err != nil {
			return err
		}
		defer w.Close()
		for i := range calcs {
			c := &calcs[i]
			if agentID != "" && c.in.agent != agentID {
				continue
			}
			cfg := cfgs[c.in.tenant]
			tier := tierFor(cfg, c.score)
			k := agentKey{c.in.tenant, c.in.agent}
			ch := Change{TenantID: k.tenant, AgentID: k.agent, AgentName: c.in.name, NewScore: c.score, NewTier: tier, CalculatedAt: at, Components: c.comps[:]}
			since := atStr
			if o, ok := old[k]; ok {
				ch.OldScore, ch.OldTier = o.Score, Tier(o.Tier)
				if o.Tier == string(tier) {
					since = o.TierSince
				}
			}
			comps, _ := json.Marshal(c.comps[:])
			base, _ := json.Marshal(c.baseline)
			if err := w.Put(ctx, store.AgentScoreRow{
				TenantID: k.tenant, AgentID: k.agent, Score: c.score, Tier: string(tier),
				TierSince: since, CalculatedAt: atStr, Components: string(comps), Baseline: string(base),
			}); err != nil {
				return err
			}
			changes = append(changes, ch)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("agentrisk: recalculate: %w", err)
	}
	return changes, nil
}

func (e *Engine) listAll(ctx context.Context, tenantID string) ([]AgentSummary, error) {
	rows, err := e.st.AgentScoreList(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	out := make([]AgentSummary, 0, len(rows))
	for _, r := range rows {
		out = append(out, AgentSummary{
			TenantID: r.TenantID, AgentID: r.AgentID, AgentName: r.AgentName,
			RiskTier: Tier(r.Tier), Score: r.Score, CalculatedAt: parseTime(r.CalculatedAt),
		})
	}
	if tenantID != "" && len(out) == 0 {
		if ok, err := e.hasTenant(ctx, tenantID); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("tenant %q: %w", tenantID, ErrNotFound)
		}
	}
	return out, nil
}

func (e *Engine) hasTenant(ctx context.Context, tenantID string) (bool, error) {
	n, err := e.st.CountAgents(ctx, tenantID)
	if err != nil {
		return false, fmt.Errorf("agentrisk: %w", err)
	}
	if n > 0 {
		return true, nil
	}
	return e.st.HasRiskConfig(ctx, tenantID)
}

type scoreRow struct {
	score                 int
	tier, since, at, over string
	comps, base, name     string
}

func (e *Engine) loadScore(ctx context.Context, tenantID, agentID string) (scoreRow, error) {
	var r scoreRow
	row, ok, err := e.st.AgentScore(ctx, tenantID, agentID)
	if err != nil {
		return r, fmt.Errorf("agentrisk: %w", err)
	}
	if !ok {
		if ok, _ := e.agentExists(ctx, tenantID, agentID); ok {
			return r, fmt.Errorf("agent %q of tenant %q has no score yet (run lf agents recalc): %w", agentID, tenantID, ErrNotFound)
		}
		return r, fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
	}
	r = scoreRow{
		score: row.Score, tier: row.Tier, since: row.TierSince, at: row.CalculatedAt, over: row.OverrideTier,
		comps: row.Components, base: row.Baseline, name: row.AgentName,
	}
	if err != nil {
		return r, fmt.Errorf("agentrisk: %w", err)
	}
	return r, nil
}

func (e *Engine) agentExists(ctx context.Context, tenantID, agentID string) (bool, error) {
	return e.st.AgentExists(ctx, tenantID, agentID)
}

// historyWindowTrend is the band within which a score change reads as stable.
const historyWindowTrend = 5

func (e *Engine) getForAgent(ctx context.Context, tenantID, agentID string) (AgentRisk, error) {
	r, err := e.loadScore(ctx, tenantID, agentID)
	if err != nil {
		return AgentRisk{}, err
	}
	out := AgentRisk{
		TenantID: tenantID, AgentID: agentID, AgentName: r.name, Score: r.score, RiskTier: Tier(r.tier),
		CalculatedAt: parseTime(r.at), OverrideTier: Tier(r.over), Components: []Component{},
	}
	_ = json.Unmarshal([]byte(r.comps), &out.Components)
	at := out.CalculatedAt
	// Windows and trend from the snapshots up to the latest calculation.
	points, err := e.st.AgentHistory(ctx, tenantID, agentID, store.FormatTime(at.Add(-24*time.Hour)), r.at)
	if err != nil {
		return AgentRisk{}, fmt.Errorf("agentrisk: %w", err)
	}
	type snap struct {
		t time.Time
		s int
	}
	snaps := make([]snap, len(points))
	for i, p := range points {
		snaps[i] = snap{parseTime(p.At), p.Score}
	}
	for _, w := range []struct {
		label string
		d     time.Duration
	}{{"1h", time.Hour}, {"24h", 24 * time.Hour}} {
		win := Window{Label: w.label}
		sum := 0
		for _, s := range snaps {
			if !s.t.After(at.Add(-w.d)) {
				continue
			}
			if win.SampleCount == 0 || s.s < win.MinScore {
				win.MinScore = s.s
			}
			if s.s > win.MaxScore {
				win.MaxScore = s.s
			}
			sum += s.s
			win.SampleCount++
		}
		if win.SampleCount > 0 {
			win.AvgScore = round1(float64(sum) / float64(win.SampleCount))
		}
		out.Windows = append(out.Windows, win)
	}
	// deltaVs24h: against the last snapshot at or before 24 h ago, else the
	// oldest one within the last 24 h.
	ref := -1
	refScore, found, err := e.st.AgentScoreAt(ctx, tenantID, agentID, store.FormatTime(at.Add(-24*time.Hour)))
	switch {
	case err != nil:
		return AgentRisk{}, fmt.Errorf("agentrisk: %w", err)
	case found:
		ref = refScore
	case len(snaps) > 0:
		ref = snaps[0].s
	}
	out.Trend = "stable"
	if ref >= 0 {
		out.DeltaVs24h = r.score - ref
		switch {
		case out.DeltaVs24h >= historyWindowTrend:
			out.Trend = "rising"
		case out.DeltaVs24h <= -historyWindowTrend:
			out.Trend = "falling"
		}
	}
	return out, nil
}

func (e *Engine) baseline(ctx context.Context, tenantID, agentID string) (Baseline, error) {
	body, found, err := e.st.AgentBaseline(ctx, tenantID, agentID)
	out := Baseline{AgentID: agentID, Baseline: BaselineBody{Tools: []ToolBaseline{}}}
	if err != nil {
		return out, fmt.Errorf("agentrisk: %w", err)
	}
	if !found {
		ok, err := e.agentExists(ctx, tenantID, agentID)
		if err != nil {
			return out, fmt.Errorf("agentrisk: %w", err)
		}
		if !ok {
			return out, fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
		}
		return out, nil // known agent, no recalculation yet: empty baseline
	}
	if err := json.Unmarshal([]byte(body), &out.Baseline); err != nil {
		return out, fmt.Errorf("agentrisk: stored baseline: %w", err)
	}
	if out.Baseline.Tools == nil {
		out.Baseline.Tools = []ToolBaseline{}
	}
	return out, nil
}

func (e *Engine) resetBaseline(ctx context.Context, tenantID, agentID string, at time.Time) error {
	return e.st.Update(ctx, func(tx store.Tx) error {
		row, ok, err := tx.AgentAggregate(ctx, tenantID, agentID)
		if err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		if !ok {
			return fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
		}
		a, err := decodeAgg(row.Agg, false)
		if err != nil {
			return err
		}
		a.patterns = nil // patterns are learned again from here
		empty, _ := json.Marshal(BaselineBody{Tools: []ToolBaseline{}, UpdatedAt: at.UTC()})
		if err := tx.ResetAgentBaseline(ctx, tenantID, agentID, a.encode(), at, string(empty)); err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		return nil
	})
}

func (e *Engine) release(ctx context.Context, tenantID, agentID string) error {
	if _, err := e.loadScore(ctx, tenantID, agentID); err != nil {
		return err
	}
	err := e.st.SetAgentOverride(ctx, tenantID, agentID, string(TierNormal))
	if err != nil {
		return fmt.Errorf("agentrisk: %w", err)
	}
	return nil
}

func (e *Engine) agentState(ctx context.Context, tenantID, agentID string, now time.Time) (AgentState, error) {
	var st AgentState
	row, ok, err := e.st.AgentScore(ctx, tenantID, agentID)
	if err != nil {
		return st, fmt.Errorf("agentrisk: %w", err)
	}
	if !ok {
		return st, fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
	}
	st.Score = row.Score
	tier, since, at, over := row.Tier, row.TierSince, row.CalculatedAt, row.OverrideTier
	st.TenantID, st.AgentID = tenantID, agentID
	st.Tier, st.TierSince, st.CalculatedAt, st.OverrideTier = Tier(tier), parseTime(since), parseTime(at), Tier(over)
	secs := now.Sub(st.TierSince).Seconds()
	st.SecondsInTier = &secs
	return st, nil
}

func (e *Engine) getRiskConfig(ctx context.Context, tenantID string) (RiskConfig, error) {
	body, found, err := e.st.RiskConfig(ctx, tenantID)
	if err != nil {
		cfg := defaultRiskConfig()
		cfg.TenantID = tenantID
		return cfg, fmt.Errorf("agentrisk: %w", err)
	}
	return storedRiskConfig(tenantID, body, found)
}

// storedRiskConfig is a tenant's config from its stored body (found false:
// none stored, the defaults); fields the body lacks keep their defaults.
func storedRiskConfig(tenantID, body string, found bool) (RiskConfig, error) {
	cfg := defaultRiskConfig()
	cfg.TenantID = tenantID
	if !found {
		return cfg, nil
	}
	if err := json.Unmarshal([]byte(body), &cfg); err != nil {
		return cfg, fmt.Errorf("agentrisk: stored risk config of %s: %w", tenantID, err)
	}
	cfg.TenantID = tenantID
	return cfg, nil
}

func (e *Engine) putRiskConfig(ctx context.Context, tenantID string, cfg RiskConfig) error {
	if strings.TrimSpace(tenantID) == "" {
		return fmt.Errorf("agentrisk: risk config without a tenant id")
	}
	cfg.TenantID = tenantID
	if d := validateRiskConfig(cfg, ""); d.HasErrors() {
		return invalid(d)
	}
	body, _ := json.Marshal(cfg)
	err := e.st.PutRiskConfig(ctx, tenantID, string(body), time.Now())
	if err != nil {
		return fmt.Errorf("agentrisk: %w", err)
	}
	return nil
}

func (e *Engine) listRiskConfigs(ctx context.Context) ([]RiskConfig, error) {
	rows, err := e.st.RiskConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	out := []RiskConfig{}
	for _, r := range rows {
		cfg := defaultRiskConfig()
		if err := json.Unmarshal([]byte(r.Body), &cfg); err != nil {
			return nil, fmt.Errorf("agentrisk: stored risk config of %s: %w", r.TenantID, err)
		}
		cfg.TenantID = r.TenantID
		out = append(out, cfg)
	}
	return out, nil
}

func (e *Engine) tenants(ctx context.Context) ([]string, error) {
	out, err := e.st.AgentTenants(ctx)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	return out, nil
}

// AgentTenants lists the tenants that have an agent with this id, so that
// commands can accept an agent id without --tenant when it is unambiguous.
func (e *Engine) AgentTenants(ctx context.Context, agentID string) ([]string, error) {
	out, err := e.st.TenantsOfAgent(ctx, agentID)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	return out, nil
}

// ReplaceRiskConfigs makes cfgs the whole set of stored tenant risk configs
// (lf set risk-config -f FILE): tenants left out go back to the defaults.
// All or nothing.
func (e *Engine) ReplaceRiskConfigs(ctx context.Context, cfgs []RiskConfig) error {
	for i, c := range cfgs {
		if d := validateRiskConfig(c, fmt.Sprintf("/risk_configs/%d", i)); d.HasErrors() {
			return invalid(d)
		}
	}
	bodies := make([]store.TenantBody, len(cfgs))
	for i, c := range cfgs {
		body, _ := json.Marshal(c)
		bodies[i] = store.TenantBody{TenantID: c.TenantID, Body: string(body)}
	}
	return e.st.Update(ctx, func(tx store.Tx) error {
		if err := tx.ReplaceRiskConfigs(ctx, bodies, time.Now()); err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		return nil
	})
}
