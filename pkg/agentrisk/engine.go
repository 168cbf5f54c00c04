package agentrisk

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
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
	q := `SELECT tenant_id, agent_id, agent_name, agg, first_event_at, baseline_reset_at FROM agentrisk_agents`
	var args []any
	if tenantID != "" {
		q += ` WHERE tenant_id = ?`
		args = append(args, tenantID)
	}
	q += ` ORDER BY tenant_id, agent_id`
	rows, err := e.st.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: recalculate: %w", err)
	}
	var ins []*scoreInput
	atStr := store.FormatTime(at)
	found := agentID == ""
	for rows.Next() {
		var in scoreInput
		var first, reset string
		if err := rows.Scan(&in.tenant, &in.agent, &in.name, &in.blob, &first, &reset); err != nil {
			rows.Close()
			return nil, fmt.Errorf("agentrisk: recalculate: %w", err)
		}
		if in.agent == agentID {
			found = true
		}
		if first > atStr {
			continue // no events at or before at
		}
		in.firstHour = int32(floorDiv(parseTime(first).Unix(), 3600))
		in.resetHour = math.MinInt32
		if reset != "" {
			in.resetHour = int32(floorDiv(parseTime(reset).Unix(), 3600))
		}
		ins = append(ins, &in)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("agentrisk: recalculate: %w", err)
	}
	if !found {
		return nil, fmt.Errorf("agent %q: %w", agentID, ErrNotFound)
	}
	if tenantID != "" && len(ins) == 0 {
		var n int
		_ = e.st.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = ?`, tenantID).Scan(&n)
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
	err := e.st.Tx(ctx, func(tx *sql.Tx) error {
		old := map[agentKey]struct {
			score int
			tier  string
			since string
		}{}
		oq := `SELECT tenant_id, agent_id, score, tier, tier_since FROM agentrisk_scores`
		var oargs []any
		if tenantID != "" {
			oq += ` WHERE tenant_id = ?`
			oargs = append(oargs, tenantID)
		}
		orows, err := tx.QueryContext(ctx, oq, oargs...)
		if err != nil {
			return err
		}
		for orows.Next() {
			var k agentKey
			var v struct {
				score int
				tier  string
				since string
			}
			if err := orows.Scan(&k.tenant, &k.agent, &v.score, &v.tier, &v.since); err != nil {
				orows.Close()
				return err
			}
			old[k] = v
		}
		orows.Close()
		up, err := tx.PrepareContext(ctx, `INSERT INTO agentrisk_scores (tenant_id, agent_id, score, tier, tier_since, calculated_at, components, baseline, override_tier)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, '')
			ON CONFLICT (tenant_id, agent_id) DO UPDATE SET score = excluded.score, tier = excluded.tier, tier_since = excluded.tier_since,
				calculated_at = excluded.calculated_at, components = excluded.components, baseline = excluded.baseline, override_tier = ''`)
		if err != nil {
			return err
		}
		defer up.Close()
		hist, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO agentrisk_history (tenant_id, agent_id, calculated_at, score) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer hist.Close()
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
				ch.OldScore, ch.OldTier = o.score, Tier(o.tier)
				if o.tier == string(tier) {
					since = o.since
				}
			}
			comps, _ := json.Marshal(c.comps[:])
			base, _ := json.Marshal(c.baseline)
			if _, err := up.ExecContext(ctx, k.tenant, k.agent, c.score, string(tier), since, atStr, string(comps), string(base)); err != nil {
				return err
			}
			if _, err := hist.ExecContext(ctx, k.tenant, k.agent, atStr, c.score); err != nil {
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
	q := `SELECT s.tenant_id, s.agent_id, a.agent_name, s.tier, s.score, s.calculated_at
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id`
	var args []any
	if tenantID != "" {
		q += ` WHERE s.tenant_id = ?`
		args = append(args, tenantID)
	}
	q += ` ORDER BY s.score DESC, s.tenant_id, s.agent_id`
	rows, err := e.st.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	defer rows.Close()
	out := []AgentSummary{}
	for rows.Next() {
		var s AgentSummary
		var tier, at string
		if err := rows.Scan(&s.TenantID, &s.AgentID, &s.AgentName, &tier, &s.Score, &at); err != nil {
			return nil, fmt.Errorf("agentrisk: %w", err)
		}
		s.RiskTier, s.CalculatedAt = Tier(tier), parseTime(at)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
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
	var n int
	err := e.st.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = ?`, tenantID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("agentrisk: %w", err)
	}
	if n == 0 {
		err = e.st.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_configs WHERE tenant_id = ?`, tenantID).Scan(&n)
	}
	return n > 0, err
}

type scoreRow struct {
	score                 int
	tier, since, at, over string
	comps, base, name     string
}

func (e *Engine) loadScore(ctx context.Context, tenantID, agentID string) (scoreRow, error) {
	var r scoreRow
	err := e.st.DB.QueryRowContext(ctx, `SELECT s.score, s.tier, s.tier_since, s.calculated_at, s.override_tier, s.components, s.baseline, a.agent_name
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id
		WHERE s.tenant_id = ? AND s.agent_id = ?`, tenantID, agentID).
		Scan(&r.score, &r.tier, &r.since, &r.at, &r.over, &r.comps, &r.base, &r.name)
	if errors.Is(err, sql.ErrNoRows) {
		if ok, _ := e.agentExists(ctx, tenantID, agentID); ok {
			return r, fmt.Errorf("agent %q of tenant %q has no score yet (run lf agents recalc): %w", agentID, tenantID, ErrNotFound)
		}
		return r, fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("agentrisk: %w", err)
	}
	return r, nil
}

func (e *Engine) agentExists(ctx context.Context, tenantID, agentID string) (bool, error) {
	var n int
	err := e.st.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`, tenantID, agentID).Scan(&n)
	return n > 0, err
}

// historyWindowTrend is the band within which a score change reads as stable.
const historyWindowTrend = 5

func (e *Engine) getForAgent(ctx context.Context, tenantID, agentID string) (AgentRisk, error) {
	r, err := e.loadScore(ctx, tenantID, agentID)
	if err != nil {
		return AgentRisk{}, err
	}
	out := AgentRisk{TenantID: tenantID, AgentID: agentID, AgentName: r.name, Score: r.score, RiskTier: Tier(r.tier),
		CalculatedAt: parseTime(r.at), OverrideTier: Tier(r.over), Components: []Component{}}
	_ = json.Unmarshal([]byte(r.comps), &out.Components)
	at := out.CalculatedAt
	// Windows and trend from the snapshots up to the latest calculation.
	rows, err := e.st.DB.QueryContext(ctx, `SELECT calculated_at, score FROM agentrisk_history
		WHERE tenant_id = ? AND agent_id = ? AND calculated_at > ? AND calculated_at <= ? ORDER BY calculated_at`,
		tenantID, agentID, store.FormatTime(at.Add(-24*time.Hour)), r.at)
	if err != nil {
		return AgentRisk{}, fmt.Errorf("agentrisk: %w", err)
	}
	type snap struct {
		t time.Time
		s int
	}
	var snaps []snap
	for rows.Next() {
		var ts string
		var s int
		if err := rows.Scan(&ts, &s); err != nil {
			rows.Close()
			return AgentRisk{}, err
		}
		snaps = append(snaps, snap{parseTime(ts), s})
	}
	rows.Close()
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
	var refScore int
	err = e.st.DB.QueryRowContext(ctx, `SELECT score FROM agentrisk_history WHERE tenant_id = ? AND agent_id = ? AND calculated_at <= ?
		ORDER BY calculated_at DESC LIMIT 1`, tenantID, agentID, store.FormatTime(at.Add(-24*time.Hour))).Scan(&refScore)
	switch {
	case err == nil:
		ref = refScore
	case errors.Is(err, sql.ErrNoRows):
		if len(snaps) > 0 {
			ref = snaps[0].s
		}
	default:
		return AgentRisk{}, fmt.Errorf("agentrisk: %w", err)
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
	var body string
	err := e.st.DB.QueryRowContext(ctx, `SELECT baseline FROM agentrisk_scores WHERE tenant_id = ? AND agent_id = ?`, tenantID, agentID).Scan(&body)
	out := Baseline{AgentID: agentID, Baseline: BaselineBody{Tools: []ToolBaseline{}}}
	if errors.Is(err, sql.ErrNoRows) {
		ok, err := e.agentExists(ctx, tenantID, agentID)
		if err != nil {
			return out, fmt.Errorf("agentrisk: %w", err)
		}
		if !ok {
			return out, fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
		}
		return out, nil // known agent, no recalculation yet: empty baseline
	}
	if err != nil {
		return out, fmt.Errorf("agentrisk: %w", err)
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
	return e.st.Tx(ctx, func(tx *sql.Tx) error {
		var blob []byte
		err := tx.QueryRowContext(ctx, `SELECT agg FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`, tenantID, agentID).Scan(&blob)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		a, err := decodeAgg(blob, false)
		if err != nil {
			return err
		}
		a.patterns = nil // patterns are learned again from here
		if _, err := tx.ExecContext(ctx, `UPDATE agentrisk_agents SET agg = ?, baseline_reset_at = ? WHERE tenant_id = ? AND agent_id = ?`,
			a.encode(), store.FormatTime(at), tenantID, agentID); err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		empty, _ := json.Marshal(BaselineBody{Tools: []ToolBaseline{}, UpdatedAt: at.UTC()})
		if _, err := tx.ExecContext(ctx, `UPDATE agentrisk_scores SET baseline = ? WHERE tenant_id = ? AND agent_id = ?`, string(empty), tenantID, agentID); err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		return nil
	})
}

func (e *Engine) release(ctx context.Context, tenantID, agentID string) error {
	if _, err := e.loadScore(ctx, tenantID, agentID); err != nil {
		return err
	}
	_, err := e.st.DB.ExecContext(ctx, `UPDATE agentrisk_scores SET override_tier = ? WHERE tenant_id = ? AND agent_id = ?`, string(TierNormal), tenantID, agentID)
	if err != nil {
		return fmt.Errorf("agentrisk: %w", err)
	}
	return nil
}

func (e *Engine) agentState(ctx context.Context, tenantID, agentID string, now time.Time) (AgentState, error) {
	var st AgentState
	var tier, since, at, over string
	err := e.st.DB.QueryRowContext(ctx, `SELECT score, tier, tier_since, calculated_at, override_tier FROM agentrisk_scores WHERE tenant_id = ? AND agent_id = ?`,
		tenantID, agentID).Scan(&st.Score, &tier, &since, &at, &over)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("agent %q in tenant %q: %w", agentID, tenantID, ErrNotFound)
	}
	if err != nil {
		return st, fmt.Errorf("agentrisk: %w", err)
	}
	st.TenantID, st.AgentID = tenantID, agentID
	st.Tier, st.TierSince, st.CalculatedAt, st.OverrideTier = Tier(tier), parseTime(since), parseTime(at), Tier(over)
	secs := now.Sub(st.TierSince).Seconds()
	st.SecondsInTier = &secs
	return st, nil
}

func (e *Engine) getRiskConfig(ctx context.Context, tenantID string) (RiskConfig, error) {
	var body string
	err := e.st.DB.QueryRowContext(ctx, `SELECT body FROM agentrisk_configs WHERE tenant_id = ?`, tenantID).Scan(&body)
	cfg := defaultRiskConfig()
	cfg.TenantID = tenantID
	if errors.Is(err, sql.ErrNoRows) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("agentrisk: %w", err)
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
	_, err := e.st.DB.ExecContext(ctx, `INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (tenant_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
		tenantID, string(body), store.FormatTime(time.Now()))
	if err != nil {
		return fmt.Errorf("agentrisk: %w", err)
	}
	return nil
}

func (e *Engine) listRiskConfigs(ctx context.Context) ([]RiskConfig, error) {
	rows, err := e.st.DB.QueryContext(ctx, `SELECT tenant_id, body FROM agentrisk_configs ORDER BY tenant_id`)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	defer rows.Close()
	out := []RiskConfig{}
	for rows.Next() {
		var t, body string
		if err := rows.Scan(&t, &body); err != nil {
			return nil, err
		}
		cfg := defaultRiskConfig()
		if err := json.Unmarshal([]byte(body), &cfg); err != nil {
			return nil, fmt.Errorf("agentrisk: stored risk config of %s: %w", t, err)
		}
		cfg.TenantID = t
		out = append(out, cfg)
	}
	return out, rows.Err()
}

func (e *Engine) tenants(ctx context.Context) ([]string, error) {
	return e.strings(ctx, `SELECT DISTINCT tenant_id FROM agentrisk_agents ORDER BY tenant_id`)
}

// strings runs a query of one text column and returns its values.
func (e *Engine) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := e.st.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// AgentTenants lists the tenants that have an agent with this id, so that
// commands can accept an agent id without --tenant when it is unambiguous.
func (e *Engine) AgentTenants(ctx context.Context, agentID string) ([]string, error) {
	return e.strings(ctx, `SELECT tenant_id FROM agentrisk_agents WHERE agent_id = ? ORDER BY tenant_id`, agentID)
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
	now := store.FormatTime(time.Now())
	return e.st.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM agentrisk_configs`); err != nil {
			return fmt.Errorf("agentrisk: %w", err)
		}
		for _, c := range cfgs {
			body, _ := json.Marshal(c)
			if _, err := tx.ExecContext(ctx, `INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES (?, ?, ?)`, c.TenantID, string(body), now); err != nil {
				return fmt.Errorf("agentrisk: %w", err)
			}
		}
		return nil
	})
}
