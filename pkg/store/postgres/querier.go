package postgres

import (
	"context"

	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// pgQuerier runs the shared statements (pkg/store/internal/sqlstore) on the
// pool or in a transaction, in their PostgreSQL text (pgx prepares and
// caches each text per connection).
type pgQuerier struct{ q querier }

func (q pgQuerier) Query(ctx context.Context, s *sqlstore.Stmt, args ...any) (sqlstore.Rows, error) {
	rows, err := q.q.Query(ctx, s.Postgres(), args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (q pgQuerier) QueryRow(ctx context.Context, s *sqlstore.Stmt, args ...any) sqlstore.Row {
	return q.q.QueryRow(ctx, s.Postgres(), args...)
}

func (q pgQuerier) Exec(ctx context.Context, s *sqlstore.Stmt, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, s.Postgres(), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
