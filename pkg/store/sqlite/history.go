package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// latestAtQuery finds the latest completed run of one evaluation key created
// at or before a moment, walking the evaluation_runs_latest index backwards
// from (app, key, 'completed', at): O(log runs), as refreshLatest does.
const latestAtQuery = `SELECT id FROM evaluation_runs
	WHERE app = ? AND evaluation_key = ? AND status = 'completed' AND created_at <= ?
	ORDER BY created_at DESC, id DESC LIMIT 1`

// LatestRunsAt returns the latest completed run created at or before at of
// each evaluation key in keys, or of every evaluation key when keys is nil.
func (s *Store) LatestRunsAt(ctx context.Context, keys []string, at string) ([]model.RunRef, error) {
	if keys == nil {
		var err error
		if keys, err = s.runKeys(ctx); err != nil {
			return nil, err
		}
	}
	stmt, err := s.DB.PrepareContext(ctx, latestAtQuery)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer stmt.Close()
	var out []model.RunRef
	for _, k := range keys {
		var id string
		switch err := stmt.QueryRowContext(ctx, s.app, k, at).Scan(&id); {
		case err == sql.ErrNoRows:
		case err != nil:
			return nil, fmt.Errorf("store: latest run of %s at %s: %w", k, at, err)
		default:
			out = append(out, model.RunRef{EvaluationKey: k, ID: id})
		}
	}
	return out, nil
}

// runKeys returns the evaluation keys of the app's runs, in the order
// LatestRuns lists them.
func (s *Store) runKeys(ctx context.Context) ([]string, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT DISTINCT evaluation_key FROM evaluation_runs WHERE app = ? ORDER BY evaluation_key`, s.app)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	keys := []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// RunTimeline returns the completed runs of keys (every key when nil) in
// (created_at, id) order.
func (s *Store) RunTimeline(ctx context.Context, keys []string) ([]backend.TimelineRun, error) {
	if keys == nil {
		// In the index's order, sorted here: SQLite's sorter would take
		// more time and fresh memory than sorting the strings read.
		rows, err := s.DB.QueryContext(ctx, `SELECT evaluation_key, id, created_at FROM evaluation_runs
			WHERE app = ? AND status = 'completed'`, s.app)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out, err := scanTimeline(rows)
		backend.SortTimeline(out)
		return out, err
	}
	stmt, err := s.DB.PrepareContext(ctx, `SELECT evaluation_key, id, created_at FROM evaluation_runs
		WHERE app = ? AND evaluation_key = ? AND status = 'completed' ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer stmt.Close()
	var out []backend.TimelineRun
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		rows, err := stmt.QueryContext(ctx, s.app, k)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		got, err := scanTimeline(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	backend.SortTimeline(out)
	return out, nil
}

func scanTimeline(rows *sql.Rows) ([]backend.TimelineRun, error) {
	defer rows.Close()
	var out []backend.TimelineRun
	for rows.Next() {
		var r backend.TimelineRun
		if err := rows.Scan(&r.EvaluationKey, &r.ID, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}
