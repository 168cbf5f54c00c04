package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// CollectGarbage removes abandoned runs (see backend.Abandoned) with their
// metric values. Each is removed in its own transaction under its key's
// lock, re-checked there, so a writer that finishes meanwhile keeps its run.
func (s *Store) CollectGarbage(ctx context.Context) (backend.GCResult, error) {
	var res backend.GCResult
	dead, err := sqlstore.AbandonedWriters(ctx, pgQuerier{s.Pool})
	if err != nil {
		return res, s.errf("gc", err)
	}
	for _, r := range dead {
		err := s.withTx(ctx, func(tx pgx.Tx) error {
			if err := lockKey(ctx, tx, r.App, r.Key); err != nil {
				return err
			}
			// Still the same abandoned writer?
			tag, err := tx.Exec(ctx, `SELECT 1 FROM evaluation_runs WHERE app = $1 AND evaluation_key = $2 AND id = $3
				AND writer_pid = $4 AND writer_host = $5 AND heartbeat_at = $6`, r.App, r.Key, r.ID, r.PID, r.Host, r.Heartbeat)
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
			n, err := deleteValues(ctx, tx, r.App, r.Key, r.ID)
			if err != nil {
				return s.errf("gc", err)
			}
			res.Values += n
			if err := deleteRun(ctx, tx, r.App, r.Key, r.ID); err != nil {
				return err
			}
			res.Runs = append(res.Runs, r.Key+"/"+r.ID)
			return nil
		})
		if err != nil {
			return backend.GCResult{}, err
		}
	}
	return res, nil
}

// Compact reclaims the space of deleted rows and refreshes the planner's
// statistics (VACUUM ANALYZE; it never blocks readers or writers).
func (s *Store) Compact(ctx context.Context) error {
	if _, err := s.Pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return s.errf("compact", err)
	}
	return nil
}

// Size is the size in bytes of the database (0 when it cannot be read).
func (s *Store) Size() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var n int64
	if err := s.Pool.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		return 0
	}
	return n
}
