package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// appTables are the tables whose rows belong to an app (50_apps.sql).
var appTables = []string{"entities", "evaluation_runs", "metric_values", "run_value_blocks", "latest_runs"}

// App is the app this handle reads and writes.
func (s *Store) App() string { return s.app }

// ForApp returns a handle on the same database that reads and writes app.
// Closing either handle closes the database.
func (s *Store) ForApp(app string) backend.Backend {
	return &Store{DB: s.DB, Path: s.Path, app: app}
}

// Apps lists the apps holding entities or runs, with what they hold.
func (s *Store) Apps(ctx context.Context) ([]backend.AppInfo, error) {
	kinds, err := rowset.KindCounts(s.DB.QueryContext(ctx, `SELECT app, kind, count(*) FROM entities GROUP BY app, kind`))
	if err != nil {
		return nil, fmt.Errorf("store %s: apps: %w", s.Path, err)
	}
	runs, err := rowset.RunCounts(s.DB.QueryContext(ctx, `SELECT app, count(*), max(created_at) FROM evaluation_runs GROUP BY app`))
	if err != nil {
		return nil, fmt.Errorf("store %s: apps: %w", s.Path, err)
	}
	return rowset.Apps(kinds, runs), nil
}

// hasRows tells whether app holds entities or runs.
func hasRows(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, app string,
) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM entities WHERE app = ?)
		OR EXISTS (SELECT 1 FROM evaluation_runs WHERE app = ?)`, app, app).Scan(&n)
	return n != 0, err
}

// RenameApp moves every row of app from to app to, unless to holds rows.
func (s *Store) RenameApp(ctx context.Context, from, to string) (bool, error) {
	if from == to {
		return false, nil
	}
	// Most opens find nothing to move: look before taking the write lock.
	some, err := hasRows(ctx, s.DB, from)
	if err != nil || !some {
		if err != nil {
			err = fmt.Errorf("store %s: apps: %w", s.Path, err)
		}
		return false, err
	}
	moved := false
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		taken, err := hasRows(ctx, tx, to)
		if err != nil {
			return fmt.Errorf("store %s: apps: %w", s.Path, err)
		}
		if taken {
			return fmt.Errorf("store %s: app %q: %w", s.Path, to, backend.ErrAppExists)
		}
		for _, t := range appTables {
			res, err := tx.ExecContext(ctx, `UPDATE `+t+` SET app = ? WHERE app = ?`, to, from)
			if err != nil {
				return fmt.Errorf("store %s: rename app %q to %q: %w", s.Path, from, to, err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				moved = true
			}
		}
		return nil
	})
	return moved, err
}
