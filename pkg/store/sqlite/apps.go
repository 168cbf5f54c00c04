package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// App is the app this handle reads and writes.
func (s *Store) App() string { return s.app }

// ForApp returns a handle on the same database that reads and writes app.
// Closing either handle closes the database.
func (s *Store) ForApp(app string) backend.Backend { return newStore(s.DB, s.Path, app) }

// RenameApp moves every row of app from to app to, unless to holds rows.
func (s *Store) RenameApp(ctx context.Context, from, to string) (bool, error) {
	if from == to {
		return false, nil
	}
	// Most opens find nothing to move: look before taking the write lock.
	some, err := sqlstore.HasRows(ctx, dbQuerier{s.DB}, from)
	if err != nil || !some {
		if err != nil {
			err = s.errf("apps", err)
		}
		return false, err
	}
	moved := false
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		q := newTxQuerier(tx)
		taken, err := sqlstore.HasRows(ctx, q, to)
		if err != nil {
			return s.errf("apps", err)
		}
		if taken {
			return fmt.Errorf("store %s: app %q: %w", s.Path, to, backend.ErrAppExists)
		}
		moved, err = sqlstore.MoveApp(ctx, q, s.Path, from, to)
		return err
	})
	return moved, err
}
