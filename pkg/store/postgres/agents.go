package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// Agent risk tables (schema/20_agentrisk.sql). Aggregates, components,
// baselines and configs are the domain's encodings, stored as given.

// Agents returns the aggregates of a tenant's agents ("" for every tenant),
// ordered by tenant and agent.
func (s *Store) Agents(ctx context.Context, tenantID string) ([]backend.AgentRow, error) {
	q, args := forTenant(`SELECT tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at, baseline_reset_at
		FROM agentrisk_agents`, "tenant_id", tenantID, `ORDER BY tenant_id, agent_id`)
	out, err := rowset.AgentRows(s.Pool.Query(ctx, q, args...))
	if err != nil {
		return nil, s.errf("agents", err)
	}
	return out, nil
}

// count runs a count(*) query.
func (s *Store) count(ctx context.Context, what, query string, args ...any) (int, error) {
	var n int64
	if err := s.Pool.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, s.errf(what, err)
	}
	return int(n), nil
}

// CountAgents counts the agents of a tenant.
func (s *Store) CountAgents(ctx context.Context, tenantID string) (int, error) {
	return s.count(ctx, "agents", `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = $1`, tenantID)
}

// HasRiskConfig tells whether a tenant has a stored risk config.
func (s *Store) HasRiskConfig(ctx context.Context, tenantID string) (bool, error) {
	n, err := s.count(ctx, "risk configs", `SELECT count(*) FROM agentrisk_configs WHERE tenant_id = $1`, tenantID)
	return n > 0, err
}

// AgentExists tells whether events of the agent were ingested.
func (s *Store) AgentExists(ctx context.Context, tenantID, agentID string) (bool, error) {
	n, err := s.count(ctx, "agents", `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = $1 AND agent_id = $2`, tenantID, agentID)
	return n > 0, err
}

// AgentTenants lists the tenants that have agents.
func (s *Store) AgentTenants(ctx context.Context) ([]string, error) {
	return s.strings(ctx, `SELECT DISTINCT tenant_id FROM agentrisk_agents ORDER BY tenant_id`)
}

// TenantsOfAgent lists the tenants that have an agent with this id.
func (s *Store) TenantsOfAgent(ctx context.Context, agentID string) ([]string, error) {
	return s.strings(ctx, `SELECT tenant_id FROM agentrisk_agents WHERE agent_id = $1 ORDER BY tenant_id`, agentID)
}

func (s *Store) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	out, err := rowset.Strings(s.Pool.Query(ctx, query, args...))
	if err != nil {
		return nil, s.errf("agents", err)
	}
	return out, nil
}

// AgentScoreList returns the latest scores of a tenant's agents ("" for
// every tenant), highest first, then by tenant and agent.
func (s *Store) AgentScoreList(ctx context.Context, tenantID string) ([]backend.AgentScoreRow, error) {
	q, args := forTenant(`SELECT s.tenant_id, s.agent_id, a.agent_name, s.tier, s.score, s.calculated_at
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id`,
		"s.tenant_id", tenantID, `ORDER BY s.score DESC, s.tenant_id, s.agent_id`)
	out, err := rowset.ScoreList(s.Pool.Query(ctx, q, args...))
	if err != nil {
		return nil, s.errf("agent scores", err)
	}
	return out, nil
}

// AgentScore returns an agent's latest score with its name; ok is false
// when the agent has none.
func (s *Store) AgentScore(ctx context.Context, tenantID, agentID string) (r backend.AgentScoreRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = s.Pool.QueryRow(ctx, `SELECT s.score, s.tier, s.tier_since, s.calculated_at, s.override_tier, s.components, s.baseline, a.agent_name
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id
		WHERE s.tenant_id = $1 AND s.agent_id = $2`, tenantID, agentID).
		Scan(&r.Score, &r.Tier, &r.TierSince, &r.CalculatedAt, &r.OverrideTier, &r.Components, &r.Baseline, &r.AgentName)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, s.errf("agent score", err)
	}
	return r, true, nil
}

// AgentHistory returns an agent's snapshots with after < time <= upTo,
// oldest first.
func (s *Store) AgentHistory(ctx context.Context, tenantID, agentID, after, upTo string) ([]backend.HistoryPoint, error) {
	out, err := rowset.History(s.Pool.Query(ctx, `SELECT calculated_at, score FROM agentrisk_history
		WHERE tenant_id = $1 AND agent_id = $2 AND calculated_at > $3 AND calculated_at <= $4 ORDER BY calculated_at`,
		tenantID, agentID, after, upTo))
	if err != nil {
		return nil, s.errf("agent history", err)
	}
	return out, nil
}

// AgentScoreAt returns the score of an agent's last snapshot at or before
// at; ok is false when there is none.
func (s *Store) AgentScoreAt(ctx context.Context, tenantID, agentID, at string) (score int, ok bool, err error) {
	err = s.Pool.QueryRow(ctx, `SELECT score FROM agentrisk_history WHERE tenant_id = $1 AND agent_id = $2 AND calculated_at <= $3
		ORDER BY calculated_at DESC LIMIT 1`, tenantID, agentID, at).Scan(&score)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, s.errf("agent history", err)
	}
	return score, true, nil
}

// AgentBaseline returns the JSON baseline stored with an agent's score; ok
// is false when the agent has no score.
func (s *Store) AgentBaseline(ctx context.Context, tenantID, agentID string) (body string, ok bool, err error) {
	return s.text(ctx, "agent baseline", `SELECT baseline FROM agentrisk_scores WHERE tenant_id = $1 AND agent_id = $2`, tenantID, agentID)
}

// text reads one text value; ok is false when there is no row.
func (s *Store) text(ctx context.Context, what, query string, args ...any) (string, bool, error) {
	var v string
	err := s.Pool.QueryRow(ctx, query, args...).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, s.errf(what, err)
	}
	return v, true, nil
}

// SetAgentOverride sets the tier an admin forced on an agent until its next
// recalculation.
func (s *Store) SetAgentOverride(ctx context.Context, tenantID, agentID, tier string) error {
	if _, err := s.Pool.Exec(ctx, `UPDATE agentrisk_scores SET override_tier = $1 WHERE tenant_id = $2 AND agent_id = $3`, tier, tenantID, agentID); err != nil {
		return s.errf("agent override", err)
	}
	return nil
}

// RiskConfig returns a tenant's stored risk config; ok is false when none.
func (s *Store) RiskConfig(ctx context.Context, tenantID string) (string, bool, error) {
	return s.text(ctx, "risk config", `SELECT body FROM agentrisk_configs WHERE tenant_id = $1`, tenantID)
}

// PutRiskConfig creates or replaces a tenant's risk config.
func (s *Store) PutRiskConfig(ctx context.Context, tenantID, body string, at time.Time) error {
	_, err := s.Pool.Exec(ctx, `INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (tenant_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
		tenantID, body, backend.FormatTime(at))
	if err != nil {
		return s.errf("risk config", err)
	}
	return nil
}

// RiskConfigs returns every stored risk config, ordered by tenant.
func (s *Store) RiskConfigs(ctx context.Context) ([]backend.TenantBody, error) {
	out, err := rowset.TenantBodies(s.Pool.Query(ctx, `SELECT tenant_id, body FROM agentrisk_configs ORDER BY tenant_id`))
	if err != nil {
		return nil, s.errf("risk configs", err)
	}
	return out, nil
}

// ReplaceRiskConfigs makes cfgs the whole set of stored risk configs.
func (t *Tx) ReplaceRiskConfigs(ctx context.Context, cfgs []backend.TenantBody, at time.Time) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM agentrisk_configs`); err != nil {
		return t.st.errf("risk configs", err)
	}
	now := backend.FormatTime(at)
	for _, c := range cfgs {
		if _, err := t.tx.Exec(ctx, `INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES ($1, $2, $3)`, c.TenantID, c.Body, now); err != nil {
			return t.st.errf("risk configs", err)
		}
	}
	return nil
}

// AgentAggregate returns one agent's row inside the transaction; ok is
// false when the agent has none.
func (t *Tx) AgentAggregate(ctx context.Context, tenantID, agentID string) (r backend.AgentRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = t.tx.QueryRow(ctx, `SELECT agg, agent_name, first_event_at, last_event_at, baseline_reset_at
		FROM agentrisk_agents WHERE tenant_id = $1 AND agent_id = $2`,
		tenantID, agentID).Scan(&r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, t.st.errf("agent", err)
	}
	return r, true, nil
}

// ResetAgentBaseline stores an agent's aggregate with its learned patterns
// dropped, the time of the reset and an empty baseline.
func (t *Tx) ResetAgentBaseline(ctx context.Context, tenantID, agentID string, agg []byte, at time.Time, emptyBaseline string) error {
	if _, err := t.tx.Exec(ctx, `UPDATE agentrisk_agents SET agg = $1, baseline_reset_at = $2 WHERE tenant_id = $3 AND agent_id = $4`,
		agg, backend.FormatTime(at), tenantID, agentID); err != nil {
		return t.st.errf("reset baseline", err)
	}
	if _, err := t.tx.Exec(ctx, `UPDATE agentrisk_scores SET baseline = $1 WHERE tenant_id = $2 AND agent_id = $3`, emptyBaseline, tenantID, agentID); err != nil {
		return t.st.errf("reset baseline", err)
	}
	return nil
}

// AgentScores returns the latest scores (tenant, agent, score, tier, tier
// since) of a tenant's agents ("" for every tenant) inside the transaction.
func (t *Tx) AgentScores(ctx context.Context, tenantID string) ([]backend.AgentScoreRow, error) {
	q, args := forTenant(`SELECT tenant_id, agent_id, score, tier, tier_since FROM agentrisk_scores`, "tenant_id", tenantID, "")
	out, err := rowset.Scores(t.tx.Query(ctx, q, args...))
	if err != nil {
		return nil, t.st.errf("agent scores", err)
	}
	return out, nil
}

// ScoreWriter writes agents' new scores and history snapshots inside a Tx,
// both statements of one agent in one round trip.
type ScoreWriter struct{ t *Tx }

// ScoreWriter returns the score writer of the transaction; Close it.
func (t *Tx) ScoreWriter(ctx context.Context) (backend.ScoreWriter, error) {
	return &ScoreWriter{t: t}, nil
}

// Put writes an agent's score (clearing an admin override) and its snapshot.
func (w *ScoreWriter) Put(ctx context.Context, r backend.AgentScoreRow) error {
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO agentrisk_scores (tenant_id, agent_id, score, tier, tier_since, calculated_at, components, baseline, override_tier)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '')
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET score = excluded.score, tier = excluded.tier, tier_since = excluded.tier_since,
			calculated_at = excluded.calculated_at, components = excluded.components, baseline = excluded.baseline, override_tier = ''`,
		r.TenantID, r.AgentID, r.Score, r.Tier, r.TierSince, r.CalculatedAt, r.Components, r.Baseline)
	b.Queue(`INSERT INTO agentrisk_history (tenant_id, agent_id, calculated_at, score) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, agent_id, calculated_at) DO UPDATE SET score = excluded.score`,
		r.TenantID, r.AgentID, r.CalculatedAt, r.Score)
	if err := w.t.tx.SendBatch(ctx, b).Close(); err != nil {
		return w.t.st.errf("agent score", err)
	}
	return nil
}

// Close does nothing: every Put is written when it returns.
func (w *ScoreWriter) Close() {}
