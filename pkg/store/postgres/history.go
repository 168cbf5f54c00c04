package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// LatestRunsAt returns the latest completed run created at or before at of
// each evaluation key in keys (in their order), or of every evaluation key
// when keys is nil (in key order). Each key is one backward step of the
// evaluation_runs_latest index, as when latest_runs is brought up to date.
func (s *Store) LatestRunsAt(ctx context.Context, keys []string, at string) ([]model.RunRef, error) {
	var rows pgx.Rows
	var err error
	const latest = `(SELECT r.id FROM evaluation_runs r
		WHERE r.app = $1 AND r.evaluation_key = k.key AND r.status = 'completed' AND r.created_at <= $2
		ORDER BY r.created_at DESC, r.id DESC LIMIT 1)`
	if keys == nil {
		rows, err = s.Pool.Query(ctx, `SELECT k.key, `+latest+` AS id
			FROM (SELECT DISTINCT evaluation_key AS key FROM evaluation_runs WHERE app = $1) k
			ORDER BY k.key`, s.app, at)
	} else {
		rows, err = s.Pool.Query(ctx, `SELECT k.key, `+latest+` AS id
			FROM unnest($3::text[]) WITH ORDINALITY AS k(key, n)
			ORDER BY k.n`, s.app, at, keys)
	}
	if err != nil {
		return nil, s.errf("latest runs at "+at, err)
	}
	defer rows.Close()
	var out []model.RunRef
	for rows.Next() {
		var key string
		var id *string
		if err := rows.Scan(&key, &id); err != nil {
			return nil, s.errf("latest runs at "+at, err)
		}
		if id != nil {
			out = append(out, model.RunRef{EvaluationKey: key, ID: *id})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.errf("latest runs at "+at, err)
	}
	return out, nil
}

// RunTimeline returns the completed runs of keys (every key when nil) in
// (created_at, id) order.
func (s *Store) RunTimeline(ctx context.Context, keys []string) ([]backend.TimelineRun, error) {
	var rows pgx.Rows
	var err error
	if keys == nil {
		rows, err = s.Pool.Query(ctx, sqlstore.RunTimelineAll.Postgres(), s.app)
	} else {
		rows, err = s.Pool.Query(ctx, `SELECT evaluation_key, id, created_at FROM evaluation_runs
			WHERE app = $1 AND evaluation_key = ANY($2::text[]) AND status = 'completed'
			ORDER BY created_at, id, evaluation_key`, s.app, keys)
	}
	if err != nil {
		return nil, s.errf("run timeline", err)
	}
	defer rows.Close()
	var out []backend.TimelineRun
	for rows.Next() {
		var r backend.TimelineRun
		if err := rows.Scan(&r.EvaluationKey, &r.ID, &r.CreatedAt); err != nil {
			return nil, s.errf("run timeline", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errf("run timeline", err)
	}
	return out, nil
}
