package sqlstore

import (
	"context"
	"database/sql"
	"errors"
)

// Row is the one-row result of QueryRow; a missing row is an error that
// matches sql.ErrNoRows (pgx.ErrNoRows does).
type Row interface {
	Scan(dest ...any) error
}

// Querier runs statements on a database or inside a transaction, in the
// text of its backend's dialect. Each backend implements it over its
// driver.
type Querier interface {
	Query(ctx context.Context, s *Stmt, args ...any) (Rows, error)
	QueryRow(ctx context.Context, s *Stmt, args ...any) Row
	// Exec runs s and returns how many rows it changed.
	Exec(ctx context.Context, s *Stmt, args ...any) (int64, error)
}

// noRows tells whether err says a QueryRow found no row, with either
// driver.
func noRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
