package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// Agent risk tables (schema/20_agentrisk.sql). Aggregates, components,
// baselines and configs are the domain's encodings, stored as given. The
// reads are sqlstore's.

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
	b.Queue(sqlstore.PutScore.Postgres(), r.TenantID, r.AgentID, r.Score, r.Tier, r.TierSince, r.CalculatedAt, r.Components, r.Baseline)
	b.Queue(sqlstore.PutHistory.Postgres(), r.TenantID, r.AgentID, r.CalculatedAt, r.Score)
	if err := w.t.tx.SendBatch(ctx, b).Close(); err != nil {
		return w.t.st.errf("agent score", err)
	}
	return nil
}

// Close does nothing: every Put is written when it returns.
func (w *ScoreWriter) Close() {}
