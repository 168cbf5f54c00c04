package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// Agent risk tables (schema/20_agentrisk.sql, 60_agentrisk_hashsets.sql,
// 70_agentrisk_hashchunks.sql): the seen-event hashes per tenant and hour
// (in chunks), one aggregate per (tenant, agent), the latest score of each
// agent with its components and baseline, the score history and the
// tenants' risk configs. Aggregates, components, baselines and configs are
// the domain's encodings, stored as they are given. The reads are
// sqlstore's; the writers below run its statements prepared once per
// transaction.

func (s *Store) errf(what string, err error) error { return sqlstore.Errf(s.Path, what, err) }

// ScoreWriter writes agents' new scores and history snapshots inside a Tx.
type ScoreWriter struct{ t *Tx }

// ScoreWriter returns the score writer of the transaction; Close it.
func (t *Tx) ScoreWriter(ctx context.Context) (backend.ScoreWriter, error) {
	return &ScoreWriter{t: t}, nil
}

// Put writes an agent's score (clearing an admin override) and its snapshot.
func (w *ScoreWriter) Put(ctx context.Context, r backend.AgentScoreRow) error {
	if _, err := w.t.q.Exec(ctx, sqlstore.PutScore, r.TenantID, r.AgentID, r.Score, r.Tier, r.TierSince, r.CalculatedAt, r.Components, r.Baseline); err != nil {
		return w.t.st.errf("agent score", err)
	}
	if _, err := w.t.q.Exec(ctx, sqlstore.PutHistory, r.TenantID, r.AgentID, r.CalculatedAt, r.Score); err != nil {
		return w.t.st.errf("agent history", err)
	}
	return nil
}

// Close does nothing: the statements go with the transaction.
func (w *ScoreWriter) Close() {}

// EventIngest folds events into agents inside a Tx: it loads and writes the
// per-(tenant, hour) hash sets, in chunks, that make ingest idempotent and
// the agents' aggregates.
type EventIngest struct {
	t    *Tx
	same *sql.Stmt // AgentIfChanged's, prepared on first use
}

// EventIngest returns the ingest of the transaction; Close it.
func (t *Tx) EventIngest(ctx context.Context) (backend.EventIngest, error) {
	return &EventIngest{t: t}, nil
}

func (in *EventIngest) errf(what string, err error) error { return in.t.st.errf(what, err) }

// HashChunks returns the hashes of the chunks of a tenant's hour numbered
// above after, in chunk order, the hour's highest chunk number and how many
// chunks are numbered after or above.
func (in *EventIngest) HashChunks(ctx context.Context, tenantID string, hour, after int64) (hashes []byte, last int64, n int, err error) {
	rows, err := in.t.q.rawRows(ctx, sqlstore.HashChunksFrom, after, tenantID, hour)
	if err != nil {
		return nil, 0, 0, in.errf("ingest", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b sql.RawBytes
		if err := rows.Scan(&last, &b); err != nil {
			return nil, 0, 0, in.errf("ingest", err)
		}
		hashes = append(hashes, b...)
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, in.errf("ingest", err)
	}
	return hashes, last, n, nil
}

// exec runs one of the ingest's writes.
func (in *EventIngest) exec(ctx context.Context, s *sqlstore.Stmt, args ...any) error {
	if _, err := in.t.q.Exec(ctx, s, args...); err != nil {
		return in.errf("ingest", err)
	}
	return nil
}

// AddHashChunk stores hashes as chunk number chunk of a tenant's hour.
func (in *EventIngest) AddHashChunk(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error {
	return in.exec(ctx, sqlstore.AddHashChunk, tenantID, hour, chunk, hashes)
}

// PutHashSet replaces every chunk of a tenant's hour by one, numbered chunk.
func (in *EventIngest) PutHashSet(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error {
	if err := in.exec(ctx, sqlstore.DropHashChunks, tenantID, hour); err != nil {
		return err
	}
	return in.AddHashChunk(ctx, tenantID, hour, chunk, hashes)
}

// LatestHashHour returns the latest hour with a hash set of the tenant.
func (in *EventIngest) LatestHashHour(ctx context.Context, tenantID string) (int64, bool, error) {
	var h sql.NullInt64
	if err := in.t.q.QueryRow(ctx, sqlstore.LatestHashHour, tenantID).Scan(&h); err != nil {
		return 0, false, in.errf("ingest", err)
	}
	return h.Int64, h.Valid, nil
}

// PruneHashSets deletes the tenant's hash sets of the hours before hour.
func (in *EventIngest) PruneHashSets(ctx context.Context, tenantID string, before int64) error {
	return in.exec(ctx, sqlstore.PruneHashSets, tenantID, before)
}

// LegacyHashes describes the hashes of a store from before schema 60.
func (in *EventIngest) LegacyHashes(ctx context.Context) (backend.LegacyHashes, bool, error) {
	var l backend.LegacyHashes
	err := in.t.q.QueryRow(ctx, sqlstore.LegacyHashes).Scan(&l.Until, &l.Kept)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return l, false, nil
	case err != nil:
		return l, false, in.errf("ingest", err)
	}
	return l, true, nil
}

// LegacySeen tells whether the legacy set holds a hash.
func (in *EventIngest) LegacySeen(ctx context.Context, hash []byte) (bool, error) {
	var seen bool
	if err := in.t.q.QueryRow(ctx, sqlstore.LegacySeen, hash).Scan(&seen); err != nil {
		return false, in.errf("ingest", err)
	}
	return seen, nil
}

// DropLegacyHashes deletes the legacy hashes, keeping their until hour.
func (in *EventIngest) DropLegacyHashes(ctx context.Context) error {
	if err := in.exec(ctx, sqlstore.DropLegacyHashes); err != nil {
		return err
	}
	return in.exec(ctx, sqlstore.LegacyNotKept)
}

// Agent returns an agent's stored row; ok is false for a new agent.
func (in *EventIngest) Agent(ctx context.Context, tenantID, agentID string) (r backend.AgentRow, ok bool, err error) {
	return in.t.AgentAggregate(ctx, tenantID, agentID)
}

// AgentIfChanged is Agent for a caller that holds the aggregate it expects
// (known): when the stored one is known byte for byte, the row comes back
// without it (same true), sparing its copy out of the store.
func (in *EventIngest) AgentIfChanged(ctx context.Context, tenantID, agentID string, known []byte) (r backend.AgentRow, same, ok bool, err error) {
	if in.same == nil {
		in.same, err = in.t.tx.PrepareContext(ctx, `SELECT agg = ?3, CASE WHEN agg = ?3 THEN NULL ELSE agg END,
			agent_name, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents WHERE tenant_id = ?1 AND agent_id = ?2`)
		if err != nil {
			return r, false, false, in.errf("agent", err)
		}
	}
	r.TenantID, r.AgentID = tenantID, agentID
	err = in.same.QueryRowContext(ctx, tenantID, agentID, known).Scan(&same, &r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, false, nil
	case err != nil:
		return r, false, false, in.errf("agent", err)
	}
	return r, same, true, nil
}

// PutAgent writes an agent's aggregate (FirstEventAt and LastEventAt in
// TimeFormat; its baseline reset time is kept).
func (in *EventIngest) PutAgent(ctx context.Context, r backend.AgentRow) error {
	return in.exec(ctx, sqlstore.PutAgent, r.TenantID, r.AgentID, r.AgentName, r.Agg, r.FirstEventAt, r.LastEventAt)
}

// HasAgents tells whether the tenant has an agent stored.
func (in *EventIngest) HasAgents(ctx context.Context, tenantID string) (bool, error) {
	var ok bool
	if err := in.t.q.QueryRow(ctx, sqlstore.HasAgents, tenantID).Scan(&ok); err != nil {
		return false, in.errf("ingest", err)
	}
	return ok, nil
}

// RiskConfig returns the tenant's stored risk config body; ok is false when none.
func (in *EventIngest) RiskConfig(ctx context.Context, tenantID string) (body string, ok bool, err error) {
	return sqlstore.RiskConfigOf(ctx, in.t.q, in.t.st.Path, "ingest", tenantID)
}

// Close releases AgentIfChanged's statement (the others go with the
// transaction).
func (in *EventIngest) Close() {
	if in.same != nil {
		in.same.Close()
	}
}
