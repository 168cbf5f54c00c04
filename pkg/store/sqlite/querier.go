package sqlite

import (
	"context"
	"database/sql"

	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// dbQuerier runs the shared statements (pkg/store/internal/sqlstore) on the
// store's database, in their SQLite text.
type dbQuerier struct{ db *sql.DB }

func (q dbQuerier) Query(ctx context.Context, s *sqlstore.Stmt, args ...any) (sqlstore.Rows, error) {
	rows, err := q.db.QueryContext(ctx, s.SQLite(), args...)
	return sqlRows(rows, err), err
}

func (q dbQuerier) QueryRow(ctx context.Context, s *sqlstore.Stmt, args ...any) sqlstore.Row {
	return q.db.QueryRowContext(ctx, s.SQLite(), args...)
}

func (q dbQuerier) Exec(ctx context.Context, s *sqlstore.Stmt, args ...any) (int64, error) {
	res, err := q.db.ExecContext(ctx, s.SQLite(), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// txQuerier runs the shared statements inside a transaction, each prepared
// on first use and kept for the rest of the transaction (database/sql
// closes them with it): ingest and scoring run a few statements many times.
type txQuerier struct {
	tx    *sql.Tx
	stmts map[*sqlstore.Stmt]*sql.Stmt
}

func newTxQuerier(tx *sql.Tx) *txQuerier { return &txQuerier{tx: tx} }

// stmt returns s prepared in the transaction.
func (q *txQuerier) stmt(ctx context.Context, s *sqlstore.Stmt) (*sql.Stmt, error) {
	if st, ok := q.stmts[s]; ok {
		return st, nil
	}
	st, err := q.tx.PrepareContext(ctx, s.SQLite())
	if err != nil {
		return nil, err
	}
	if q.stmts == nil {
		q.stmts = map[*sqlstore.Stmt]*sql.Stmt{}
	}
	q.stmts[s] = st
	return st, nil
}

func (q *txQuerier) Query(ctx context.Context, s *sqlstore.Stmt, args ...any) (sqlstore.Rows, error) {
	rows, err := q.rawRows(ctx, s, args...)
	return sqlRows(rows, err), err
}

// rawRows is the database/sql result set of s, for a caller that scans
// into sql.RawBytes.
func (q *txQuerier) rawRows(ctx context.Context, s *sqlstore.Stmt, args ...any) (*sql.Rows, error) {
	st, err := q.stmt(ctx, s)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (q *txQuerier) QueryRow(ctx context.Context, s *sqlstore.Stmt, args ...any) sqlstore.Row {
	st, err := q.stmt(ctx, s)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

func (q *txQuerier) Exec(ctx context.Context, s *sqlstore.Stmt, args ...any) (int64, error) {
	st, err := q.stmt(ctx, s)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// errRow is the row of a statement that could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// sqlRows is rows as a sqlstore.Rows: nil (not a nil *sql.Rows) on error.
func sqlRows(rows *sql.Rows, err error) sqlstore.Rows {
	if err != nil {
		return nil
	}
	return rows
}
