package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// Agent risk tables (schema/20_agentrisk.sql, 60_agentrisk_hashsets.sql,
// 70_agentrisk_hashchunks.sql): the seen-event hashes per tenant and hour
// (in chunks), one
// aggregate per (tenant, agent), the latest score of each agent with its
// components and baseline, the score history and the tenants' risk
// configs. Aggregates, components, baselines and configs are the domain's
// encodings, stored as they are given.

func (s *Store) errf(what string, err error) error {
	return fmt.Errorf("store %s: %s: %w", s.Path, what, err)
}

// Agents returns the aggregates of a tenant's agents ("" for every tenant),
// ordered by tenant and agent.
func (s *Store) Agents(ctx context.Context, tenantID string) ([]backend.AgentRow, error) {
	q := `SELECT tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents`
	var args []any
	if tenantID != "" {
		q += ` WHERE tenant_id = ?`
		args = append(args, tenantID)
	}
	q += ` ORDER BY tenant_id, agent_id`
	out, err := rowset.AgentRows(s.DB.QueryContext(ctx, q, args...))
	if err != nil {
		return nil, s.errf("agents", err)
	}
	return out, nil
}

// CountAgents counts the agents of a tenant.
func (s *Store) CountAgents(ctx context.Context, tenantID string) (int, error) {
	var n int
	if err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = ?`, tenantID).Scan(&n); err != nil {
		return 0, s.errf("agents", err)
	}
	return n, nil
}

// HasRiskConfig tells whether a tenant has a stored risk config.
func (s *Store) HasRiskConfig(ctx context.Context, tenantID string) (bool, error) {
	var n int
	if err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_configs WHERE tenant_id = ?`, tenantID).Scan(&n); err != nil {
		return false, s.errf("risk configs", err)
	}
	return n > 0, nil
}

// AgentExists tells whether events of the agent were ingested.
func (s *Store) AgentExists(ctx context.Context, tenantID, agentID string) (bool, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`, tenantID, agentID).Scan(&n)
	if err != nil {
		return false, s.errf("agents", err)
	}
	return n > 0, nil
}

// AgentTenants lists the tenants that have agents.
func (s *Store) AgentTenants(ctx context.Context) ([]string, error) {
	return s.strings(ctx, `SELECT DISTINCT tenant_id FROM agentrisk_agents ORDER BY tenant_id`)
}

// TenantsOfAgent lists the tenants that have an agent with this id.
func (s *Store) TenantsOfAgent(ctx context.Context, agentID string) ([]string, error) {
	return s.strings(ctx, `SELECT tenant_id FROM agentrisk_agents WHERE agent_id = ? ORDER BY tenant_id`, agentID)
}

func (s *Store) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	out, err := rowset.Strings(s.DB.QueryContext(ctx, query, args...))
	if err != nil {
		return nil, s.errf("agents", err)
	}
	return out, nil
}

// AgentScoreList returns the latest scores of a tenant's agents ("" for
// every tenant), highest first, then by tenant and agent.
func (s *Store) AgentScoreList(ctx context.Context, tenantID string) ([]backend.AgentScoreRow, error) {
	q := `SELECT s.tenant_id, s.agent_id, a.agent_name, s.tier, s.score, s.calculated_at
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id`
	var args []any
	if tenantID != "" {
		q += ` WHERE s.tenant_id = ?`
		args = append(args, tenantID)
	}
	q += ` ORDER BY s.score DESC, s.tenant_id, s.agent_id`
	out, err := rowset.ScoreList(s.DB.QueryContext(ctx, q, args...))
	if err != nil {
		return nil, s.errf("agent scores", err)
	}
	return out, nil
}

// AgentScore returns an agent's latest score with its name; ok is false
// when the agent has none.
func (s *Store) AgentScore(ctx context.Context, tenantID, agentID string) (r backend.AgentScoreRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = s.DB.QueryRowContext(ctx, `SELECT s.score, s.tier, s.tier_since, s.calculated_at, s.override_tier, s.components, s.baseline, a.agent_name
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id
		WHERE s.tenant_id = ? AND s.agent_id = ?`, tenantID, agentID).
		Scan(&r.Score, &r.Tier, &r.TierSince, &r.CalculatedAt, &r.OverrideTier, &r.Components, &r.Baseline, &r.AgentName)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, s.errf("agent score", err)
	}
	return r, true, nil
}

// AgentHistory returns an agent's snapshots with after < time <= upTo, oldest
// first.
func (s *Store) AgentHistory(ctx context.Context, tenantID, agentID, after, upTo string) ([]backend.HistoryPoint, error) {
	out, err := rowset.History(s.DB.QueryContext(ctx, `SELECT calculated_at, score FROM agentrisk_history
		WHERE tenant_id = ? AND agent_id = ? AND calculated_at > ? AND calculated_at <= ? ORDER BY calculated_at`,
		tenantID, agentID, after, upTo))
	if err != nil {
		return nil, s.errf("agent history", err)
	}
	return out, nil
}

// AgentScoreAt returns the score of an agent's last snapshot at or before
// at; ok is false when there is none.
func (s *Store) AgentScoreAt(ctx context.Context, tenantID, agentID, at string) (score int, ok bool, err error) {
	err = s.DB.QueryRowContext(ctx, `SELECT score FROM agentrisk_history WHERE tenant_id = ? AND agent_id = ? AND calculated_at <= ?
		ORDER BY calculated_at DESC LIMIT 1`, tenantID, agentID, at).Scan(&score)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, s.errf("agent history", err)
	}
	return score, true, nil
}

// AgentBaseline returns the JSON baseline stored with an agent's score; ok is
// false when the agent has no score.
func (s *Store) AgentBaseline(ctx context.Context, tenantID, agentID string) (body string, ok bool, err error) {
	err = s.DB.QueryRowContext(ctx, `SELECT baseline FROM agentrisk_scores WHERE tenant_id = ? AND agent_id = ?`, tenantID, agentID).Scan(&body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, s.errf("agent baseline", err)
	}
	return body, true, nil
}

// SetAgentOverride sets the tier an admin forced on an agent until its next
// recalculation.
func (s *Store) SetAgentOverride(ctx context.Context, tenantID, agentID, tier string) error {
	if _, err := s.DB.ExecContext(ctx, `UPDATE agentrisk_scores SET override_tier = ? WHERE tenant_id = ? AND agent_id = ?`, tier, tenantID, agentID); err != nil {
		return s.errf("agent override", err)
	}
	return nil
}

// RiskConfig returns a tenant's stored risk config; ok is false when none.
func (s *Store) RiskConfig(ctx context.Context, tenantID string) (body string, ok bool, err error) {
	err = s.DB.QueryRowContext(ctx, `SELECT body FROM agentrisk_configs WHERE tenant_id = ?`, tenantID).Scan(&body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, s.errf("risk config", err)
	}
	return body, true, nil
}

// PutRiskConfig creates or replaces a tenant's risk config.
func (s *Store) PutRiskConfig(ctx context.Context, tenantID, body string, at time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (tenant_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
		tenantID, body, backend.FormatTime(at))
	if err != nil {
		return s.errf("risk config", err)
	}
	return nil
}

// RiskConfigs returns every stored risk config, ordered by tenant.
func (s *Store) RiskConfigs(ctx context.Context) ([]backend.TenantBody, error) {
	out, err := rowset.TenantBodies(s.DB.QueryContext(ctx, `SELECT tenant_id, body FROM agentrisk_configs ORDER BY tenant_id`))
	if err != nil {
		return nil, s.errf("risk configs", err)
	}
	return out, nil
}

// ReplaceRiskConfigs makes cfgs the whole set of stored risk configs.
func (t *Tx) ReplaceRiskConfigs(ctx context.Context, cfgs []backend.TenantBody, at time.Time) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM agentrisk_configs`); err != nil {
		return t.st.errf("risk configs", err)
	}
	now := backend.FormatTime(at)
	for _, c := range cfgs {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES (?, ?, ?)`, c.TenantID, c.Body, now); err != nil {
			return t.st.errf("risk configs", err)
		}
	}
	return nil
}

// AgentAggregate returns one agent's row inside the transaction; ok is
// false when the agent has none.
func (t *Tx) AgentAggregate(ctx context.Context, tenantID, agentID string) (r backend.AgentRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = t.tx.QueryRowContext(ctx, `SELECT agg, agent_name, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`,
		tenantID, agentID).Scan(&r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, t.st.errf("agent", err)
	}
	return r, true, nil
}

// ResetAgentBaseline stores an agent's aggregate with its learned patterns
// dropped, the time of the reset and an empty baseline.
func (t *Tx) ResetAgentBaseline(ctx context.Context, tenantID, agentID string, agg []byte, at time.Time, emptyBaseline string) error {
	if _, err := t.tx.ExecContext(ctx, `UPDATE agentrisk_agents SET agg = ?, baseline_reset_at = ? WHERE tenant_id = ? AND agent_id = ?`,
		agg, backend.FormatTime(at), tenantID, agentID); err != nil {
		return t.st.errf("reset baseline", err)
	}
	if _, err := t.tx.ExecContext(ctx, `UPDATE agentrisk_scores SET baseline = ? WHERE tenant_id = ? AND agent_id = ?`, emptyBaseline, tenantID, agentID); err != nil {
		return t.st.errf("reset baseline", err)
	}
	return nil
}

// AgentScores returns the latest scores (tenant, agent, score, tier, tier
// since) of a tenant's agents ("" for every tenant) inside the transaction.
func (t *Tx) AgentScores(ctx context.Context, tenantID string) ([]backend.AgentScoreRow, error) {
	q := `SELECT tenant_id, agent_id, score, tier, tier_since FROM agentrisk_scores`
	var args []any
	if tenantID != "" {
		q += ` WHERE tenant_id = ?`
		args = append(args, tenantID)
	}
	out, err := rowset.Scores(t.tx.QueryContext(ctx, q, args...))
	if err != nil {
		return nil, t.st.errf("agent scores", err)
	}
	return out, nil
}

// ScoreWriter writes agents' new scores and history snapshots inside a Tx.
type ScoreWriter struct {
	st       *Store
	up, hist *sql.Stmt
}

// ScoreWriter prepares the score writes; Close it.
func (t *Tx) ScoreWriter(ctx context.Context) (backend.ScoreWriter, error) {
	up, err := t.tx.PrepareContext(ctx, `INSERT INTO agentrisk_scores (tenant_id, agent_id, score, tier, tier_since, calculated_at, components, baseline, override_tier)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, '')
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET score = excluded.score, tier = excluded.tier, tier_since = excluded.tier_since,
			calculated_at = excluded.calculated_at, components = excluded.components, baseline = excluded.baseline, override_tier = ''`)
	if err != nil {
		return nil, t.st.errf("agent scores", err)
	}
	hist, err := t.tx.PrepareContext(ctx, `INSERT OR REPLACE INTO agentrisk_history (tenant_id, agent_id, calculated_at, score) VALUES (?, ?, ?, ?)`)
	if err != nil {
		up.Close()
		return nil, t.st.errf("agent scores", err)
	}
	return &ScoreWriter{st: t.st, up: up, hist: hist}, nil
}

// Put writes an agent's score (clearing an admin override) and its snapshot.
func (w *ScoreWriter) Put(ctx context.Context, r backend.AgentScoreRow) error {
	if _, err := w.up.ExecContext(ctx, r.TenantID, r.AgentID, r.Score, r.Tier, r.TierSince, r.CalculatedAt, r.Components, r.Baseline); err != nil {
		return w.st.errf("agent score", err)
	}
	if _, err := w.hist.ExecContext(ctx, r.TenantID, r.AgentID, r.CalculatedAt, r.Score); err != nil {
		return w.st.errf("agent history", err)
	}
	return nil
}

// Close releases the statements.
func (w *ScoreWriter) Close() {
	w.up.Close()
	w.hist.Close()
}

// EventIngest folds events into agents inside a Tx: it loads and writes the
// per-(tenant, hour) hash sets, in chunks, that make ingest idempotent and
// the agents' aggregates.
type EventIngest struct {
	t                                     *Tx
	chunks, addChunk, dropChunks, get, up *sql.Stmt
	legacy                                *sql.Stmt
	same                                  *sql.Stmt // AgentIfChanged's, prepared on first use
}

// EventIngest prepares an ingest; Close it.
func (t *Tx) EventIngest(ctx context.Context) (backend.EventIngest, error) {
	in := &EventIngest{t: t}
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		// The chunk numbered after is read too (without its hashes) to
		// tell "nothing new" from "the hour is gone".
		{&in.chunks, `SELECT chunk, CASE WHEN chunk > ?1 THEN hashes END FROM agentrisk_seen_hours
			WHERE tenant_id = ?2 AND hour = ?3 AND chunk >= ?1 ORDER BY chunk`},
		{&in.addChunk, `INSERT INTO agentrisk_seen_hours (tenant_id, hour, chunk, hashes) VALUES (?, ?, ?, ?)
			ON CONFLICT (tenant_id, hour, chunk) DO UPDATE SET hashes = excluded.hashes`},
		{&in.dropChunks, `DELETE FROM agentrisk_seen_hours WHERE tenant_id = ? AND hour = ?`},
		{&in.up, `INSERT INTO agentrisk_agents (tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant_id, agent_id) DO UPDATE SET agent_name = excluded.agent_name, agg = excluded.agg,
				first_event_at = excluded.first_event_at, last_event_at = excluded.last_event_at`},
		{&in.legacy, `SELECT count(*) FROM agentrisk_seen WHERE hash = ?`},
		{&in.get, `SELECT agg, agent_name, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`},
	} {
		st, err := t.tx.PrepareContext(ctx, p.q)
		if err != nil {
			in.Close()
			return nil, t.st.errf("ingest", err)
		}
		*p.st = st
	}
	return in, nil
}

// HashChunks returns the hashes of the chunks of a tenant's hour numbered
// above after, in chunk order, the hour's highest chunk number and how many
// chunks are numbered after or above.
func (in *EventIngest) HashChunks(ctx context.Context, tenantID string, hour, after int64) (hashes []byte, last int64, n int, err error) {
	rows, err := in.chunks.QueryContext(ctx, after, tenantID, hour)
	if err != nil {
		return nil, 0, 0, in.t.st.errf("ingest", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b sql.RawBytes
		if err := rows.Scan(&last, &b); err != nil {
			return nil, 0, 0, in.t.st.errf("ingest", err)
		}
		hashes = append(hashes, b...)
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, in.t.st.errf("ingest", err)
	}
	return hashes, last, n, nil
}

// AddHashChunk stores hashes as chunk number chunk of a tenant's hour.
func (in *EventIngest) AddHashChunk(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error {
	if _, err := in.addChunk.ExecContext(ctx, tenantID, hour, chunk, hashes); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// PutHashSet replaces every chunk of a tenant's hour by one, numbered chunk.
func (in *EventIngest) PutHashSet(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error {
	if _, err := in.dropChunks.ExecContext(ctx, tenantID, hour); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return in.AddHashChunk(ctx, tenantID, hour, chunk, hashes)
}

// LatestHashHour returns the latest hour with a hash set of the tenant.
func (in *EventIngest) LatestHashHour(ctx context.Context, tenantID string) (int64, bool, error) {
	var h sql.NullInt64
	if err := in.t.tx.QueryRowContext(ctx, `SELECT max(hour) FROM agentrisk_seen_hours WHERE tenant_id = ?`, tenantID).Scan(&h); err != nil {
		return 0, false, in.t.st.errf("ingest", err)
	}
	return h.Int64, h.Valid, nil
}

// PruneHashSets deletes the tenant's hash sets of the hours before hour.
func (in *EventIngest) PruneHashSets(ctx context.Context, tenantID string, before int64) error {
	if _, err := in.t.tx.ExecContext(ctx, `DELETE FROM agentrisk_seen_hours WHERE tenant_id = ? AND hour < ?`, tenantID, before); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// LegacyHashes describes the hashes of a store from before schema 60.
func (in *EventIngest) LegacyHashes(ctx context.Context) (backend.LegacyHashes, bool, error) {
	var l backend.LegacyHashes
	err := in.t.tx.QueryRowContext(ctx, `SELECT until_hour, kept FROM agentrisk_seen_legacy`).Scan(&l.Until, &l.Kept)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return l, false, nil
	case err != nil:
		return l, false, in.t.st.errf("ingest", err)
	}
	return l, true, nil
}

// LegacySeen tells whether the legacy set holds a hash.
func (in *EventIngest) LegacySeen(ctx context.Context, hash []byte) (bool, error) {
	var n int
	if err := in.legacy.QueryRowContext(ctx, hash).Scan(&n); err != nil {
		return false, in.t.st.errf("ingest", err)
	}
	return n > 0, nil
}

// DropLegacyHashes deletes the legacy hashes, keeping their until hour.
func (in *EventIngest) DropLegacyHashes(ctx context.Context) error {
	if _, err := in.t.tx.ExecContext(ctx, `DELETE FROM agentrisk_seen`); err != nil {
		return in.t.st.errf("ingest", err)
	}
	if _, err := in.t.tx.ExecContext(ctx, `UPDATE agentrisk_seen_legacy SET kept = 0`); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// Agent returns an agent's stored row; ok is false for a new agent.
func (in *EventIngest) Agent(ctx context.Context, tenantID, agentID string) (r backend.AgentRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = in.get.QueryRowContext(ctx, tenantID, agentID).Scan(&r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, in.t.st.errf("agent", err)
	}
	return r, true, nil
}

// AgentIfChanged is Agent for a caller that holds the aggregate it expects
// (known): when the stored one is known byte for byte, the row comes back
// without it (same true), sparing its copy out of the store.
func (in *EventIngest) AgentIfChanged(ctx context.Context, tenantID, agentID string, known []byte) (r backend.AgentRow, same, ok bool, err error) {
	if in.same == nil {
		in.same, err = in.t.tx.PrepareContext(ctx, `SELECT agg = ?3, CASE WHEN agg = ?3 THEN NULL ELSE agg END,
			agent_name, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents WHERE tenant_id = ?1 AND agent_id = ?2`)
		if err != nil {
			return r, false, false, in.t.st.errf("agent", err)
		}
	}
	r.TenantID, r.AgentID = tenantID, agentID
	err = in.same.QueryRowContext(ctx, tenantID, agentID, known).Scan(&same, &r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, false, nil
	case err != nil:
		return r, false, false, in.t.st.errf("agent", err)
	}
	return r, same, true, nil
}

// PutAgent writes an agent's aggregate (FirstEventAt and LastEventAt in
// TimeFormat; its baseline reset time is kept).
func (in *EventIngest) PutAgent(ctx context.Context, r backend.AgentRow) error {
	if _, err := in.up.ExecContext(ctx, r.TenantID, r.AgentID, r.AgentName, r.Agg, r.FirstEventAt, r.LastEventAt); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// HasAgents tells whether the tenant has an agent stored.
func (in *EventIngest) HasAgents(ctx context.Context, tenantID string) (bool, error) {
	var ok bool
	if err := in.t.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM agentrisk_agents WHERE tenant_id = ?)`, tenantID).Scan(&ok); err != nil {
		return false, in.t.st.errf("ingest", err)
	}
	return ok, nil
}

// RiskConfig returns the tenant's stored risk config body; ok is false when none.
func (in *EventIngest) RiskConfig(ctx context.Context, tenantID string) (body string, ok bool, err error) {
	err = in.t.tx.QueryRowContext(ctx, `SELECT body FROM agentrisk_configs WHERE tenant_id = ?`, tenantID).Scan(&body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, in.t.st.errf("ingest", err)
	}
	return body, true, nil
}

// Close releases the statements.
func (in *EventIngest) Close() {
	for _, st := range []*sql.Stmt{in.chunks, in.addChunk, in.dropChunks, in.get, in.up, in.legacy, in.same} {
		if st != nil {
			st.Close()
		}
	}
}
