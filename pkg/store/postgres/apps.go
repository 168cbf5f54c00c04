package postgres

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// appTables are the tables whose rows belong to an app (50_apps.sql).
var appTables = []string{"entities", "evaluation_runs", "metric_values", "latest_runs"}

// App is the app this handle reads and writes.
func (s *Store) App() string { return s.app }

// ForApp returns a handle on the same connection pool that reads and writes
// app. Closing either handle closes the pool.
func (s *Store) ForApp(app string) backend.Backend {
	return &Store{Pool: s.Pool, loc: s.loc, app: app}
}

// Apps lists the apps holding entities or runs, with what they hold.
func (s *Store) Apps(ctx context.Context) ([]backend.AppInfo, error) {
	byApp := map[string]*backend.AppInfo{}
	get := func(app string) *backend.AppInfo {
		a := byApp[app]
		if a == nil {
			a = &backend.AppInfo{App: app}
			byApp[app] = a
		}
		return a
	}
	rows, err := s.Pool.Query(ctx, `SELECT app, kind, count(*) FROM entities GROUP BY app, kind`)
	if err != nil {
		return nil, s.errf("apps", err)
	}
	for rows.Next() {
		var app, kind string
		var n int64
		if err := rows.Scan(&app, &kind, &n); err != nil {
			rows.Close()
			return nil, s.errf("apps", err)
		}
		switch model.Kind(kind) {
		case model.KindMethodology:
			get(app).Methodologies += int(n)
		case model.KindRiskScorer:
			get(app).RiskScorers += int(n)
		default:
			get(app)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.errf("apps", err)
	}
	rows, err = s.Pool.Query(ctx, `SELECT app, count(*), max(created_at) FROM evaluation_runs GROUP BY app`)
	if err != nil {
		return nil, s.errf("apps", err)
	}
	for rows.Next() {
		var app, latest string
		var n int64
		if err := rows.Scan(&app, &n, &latest); err != nil {
			rows.Close()
			return nil, s.errf("apps", err)
		}
		a := get(app)
		a.Runs, a.LatestRunAt = int(n), latest
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.errf("apps", err)
	}
	out := make([]backend.AppInfo, 0, len(byApp))
	for _, a := range byApp {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].App < out[j].App })
	return out, nil
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
