package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// CollectGarbage removes abandoned runs: runs still marked running whose
// writer is gone (a process on this host that no longer exists, or a writer
// elsewhere silent for StaleAfter), with their metric values.
func (s *Store) CollectGarbage(ctx context.Context) (backend.GCResult, error) {
	var res backend.GCResult
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		dead, err := sqlstore.AbandonedWriters(ctx, newTxQuerier(tx))
		if err != nil {
			return fmt.Errorf("store %s: gc: %w", s.Path, err)
		}
		for _, r := range dead {
			n, err := deleteValues(ctx, tx, r.App, r.Key, r.ID)
			if err != nil {
				return fmt.Errorf("store %s: gc: %w", s.Path, err)
			}
			res.Values += n
			if err := deleteRun(ctx, tx, r.App, r.Key, r.ID); err != nil {
				return err
			}
			res.Runs = append(res.Runs, r.Key+"/"+r.ID)
		}
		return nil
	})
	if err != nil {
		return backend.GCResult{}, err
	}
	return res, nil
}

func execCount(ctx context.Context, tx *sql.Tx, q string, args ...any) (int64, error) {
	r, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// Compact gives the space of deleted rows back to the file system (VACUUM).
func (s *Store) Compact(ctx context.Context) error {
	if _, err := s.DB.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("store %s: compact: %w", s.Path, err)
	}
	if _, err := s.DB.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("store %s: compact: %w", s.Path, err)
	}
	return nil
}

// Size is the size in bytes of the store's file (0 for an in-memory store).
func (s *Store) Size() int64 {
	fi, err := os.Stat(s.Path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
