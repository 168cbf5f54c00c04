package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// App is the app this handle reads and writes.
func (s *Store) App() string { return s.app }

// ForApp returns a handle on the same connection pool that reads and writes
// app. Closing either handle closes the pool.
func (s *Store) ForApp(app string) backend.Backend { return newStore(s.Pool, s.loc, app) }

// appLock is the advisory lock renames take, so that two processes adopting
// the rows of a store from before apps do it once.
const appLock = 0x6c66_6170_7073 // "lfapps"

// RenameApp moves every row of app from to app to, unless to holds rows.
func (s *Store) RenameApp(ctx context.Context, from, to string) (bool, error) {
	if from == to {
		return false, nil
	}
	// Most opens find nothing to move: look before taking the lock.
	some, err := sqlstore.HasRows(ctx, pgQuerier{s.Pool}, from)
	if err != nil || !some {
		if err != nil {
			err = s.errf("apps", err)
		}
		return false, err
	}
	moved := false
	err = s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, xactLockSQL, int64(appLock)); err != nil {
			return s.errf("apps", err)
		}
		taken, err := sqlstore.HasRows(ctx, pgQuerier{tx}, to)
		if err != nil {
			return s.errf("apps", err)
		}
		if taken {
			return fmt.Errorf("store %s: app %q: %w", s.loc, to, backend.ErrAppExists)
		}
		moved, err = sqlstore.MoveApp(ctx, pgQuerier{tx}, s.loc, from, to)
		return err
	})
	return moved, err
}
