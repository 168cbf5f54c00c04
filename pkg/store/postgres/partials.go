package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// RiskPartials returns the risk partials kept under signature, by run.
func (s *Store) RiskPartials(ctx context.Context, signature string, keys []string) (map[model.RunRef][]byte, error) {
	out, err := sqlstore.RiskPartials(ctx, pgQuerier{s.Pool}, s.app, signature, keys)
	if err != nil {
		return nil, s.errf("risk partials", err)
	}
	return out, nil
}

// PutRiskPartials keeps partials under signature in one transaction (one
// batch).
func (s *Store) PutRiskPartials(ctx context.Context, signature string, partials map[model.RunRef][]byte) error {
	return s.withTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for r, data := range partials {
			b.Queue(sqlstore.PutRiskPartial.Postgres(), s.app, signature, r.EvaluationKey, r.ID, data)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return s.errf("risk partials", err)
		}
		return nil
	})
}
