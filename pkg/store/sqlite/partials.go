package sqlite

import (
	"context"
	"database/sql"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// RiskPartials returns the risk partials kept under signature, by run.
func (s *Store) RiskPartials(ctx context.Context, signature string, keys []string) (map[model.RunRef][]byte, error) {
	out, err := sqlstore.RiskPartials(ctx, dbQuerier{s.DB}, s.app, signature, keys)
	if err != nil {
		return nil, s.errf("risk partials", err)
	}
	return out, nil
}

// PutRiskPartials keeps partials under signature in one transaction.
func (s *Store) PutRiskPartials(ctx context.Context, signature string, partials map[model.RunRef][]byte) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, sqlstore.PutRiskPartial.SQLite())
		if err != nil {
			return s.errf("risk partials", err)
		}
		defer stmt.Close()
		for r, data := range partials {
			if _, err := stmt.ExecContext(ctx, s.app, signature, r.EvaluationKey, r.ID, data); err != nil {
				return s.errf("risk partials", err)
			}
		}
		return nil
	})
}
