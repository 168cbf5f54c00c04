package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// appTables are the tables whose rows belong to an app (50_apps.sql).
var appTables = []string{"entities", "evaluation_runs", "metric_values", "run_value_blocks", "latest_runs"}

// App is the app this handle reads and writes.
func (s *Store) App() string { return s.app }

// ForApp returns a handle on the same connection pool that reads and writes
// app. Closing either handle closes the pool.
func (s *Store) ForApp(app string) backend.Backend {
	return &Store{Pool: s.Pool, loc: s.loc, app: app}
}

// Apps lists the apps holding entities or runs, with what they hold.
func (s *Store) Apps(ctx context.Context) ([]backend.AppInfo, error) {
	kinds, err := rowset.KindCounts(s.Pool.Query(ctx, `SELECT app, kind, count(*) FROM entities GROUP BY app, kind`))
	if err != nil {
		return nil, s.errf("apps", err)
	}
	runs, err := rowset.RunCounts(s.Pool.Query(ctx, `SELECT app, count(*), max(created_at) FROM evaluation_runs GROUP BY app`))
	if err != nil {
		return nil, s.errf("apps", err)
	}
	return rowset.Apps(kinds, runs), nil
}

// hasRows tells whether app holds entities or runs.
func hasRows(ctx context.Context, q querier, app string) (bool, error) {
	var some bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM entities WHERE app = $1)
		OR EXISTS (SELECT 1 FROM evaluation_runs WHERE app = $1)`, app).Scan(&some)
	return some, err
}

// appLock is the advisory lock renames take, so that two processes adopting
// the rows of a store from before apps do it once.
const appLock = 0x6c66_6170_7073 // "lfapps"

// RenameApp moves every row of app from to app to, unless to holds rows.
func (s *Store) RenameApp(ctx context.Context, from, to string) (bool, error) {
	if from == to {
		return false, nil
	}
	// Most opens find nothing to move: look before taking the lock.
	some, err := hasRows(ctx, s.Pool, from)
	if err != nil || !some {
		if err != nil {
			err = s.errf("apps", err)
		}
		return false, err
	}
	moved := false
	err = s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(appLock)); err != nil {
			return s.errf("apps", err)
		}
		taken, err := hasRows(ctx, tx, to)
		if err != nil {
			return s.errf("apps", err)
		}
		if taken {
			return fmt.Errorf("store %s: app %q: %w", s.loc, to, backend.ErrAppExists)
		}
		for _, t := range appTables {
			tag, err := tx.Exec(ctx, `UPDATE `+t+` SET app = $1 WHERE app = $2`, to, from)
			if err != nil {
				return s.errf(fmt.Sprintf("rename app %q to %q", from, to), err)
			}
			if tag.RowsAffected() > 0 {
				moved = true
			}
		}
		return nil
	})
	return moved, err
}
