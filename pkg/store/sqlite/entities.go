package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// putEntity upserts an entity inside tx: SQLite has one writer at a time,
// so reading the row first tells the outcome.
func putEntity(ctx context.Context, tx *sql.Tx, app string, e backend.Entity) (backend.Outcome, error) {
	var body, yml string
	err := tx.QueryRowContext(ctx, `SELECT body, yaml FROM entities WHERE app = ? AND kind = ? AND key = ?`, app, string(e.Kind), e.Key).Scan(&body, &yml)
	now := backend.FormatTime(time.Now())
	switch {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO entities (app, kind, key, body, yaml, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			app, string(e.Kind), e.Key, e.Body, e.YAML, now); err != nil {
			return "", fmt.Errorf("store: insert %s %s: %w", e.Kind, e.Key, err)
		}
		return backend.Created, nil
	case err != nil:
		return "", fmt.Errorf("store: %w", err)
	}
	if body == e.Body && yml == e.YAML {
		return backend.Unchanged, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE entities SET body = ?, yaml = ?, updated_at = ? WHERE app = ? AND kind = ? AND key = ?`,
		e.Body, e.YAML, now, app, string(e.Kind), e.Key); err != nil {
		return "", fmt.Errorf("store: update %s %s: %w", e.Kind, e.Key, err)
	}
	return backend.Updated, nil
}

// LatestRuns returns the latest completed run of each evaluation key in
// keys, or of every key when keys is nil (what scoring reads).
func (s *Store) LatestRuns(ctx context.Context, keys []string) ([]model.RunRef, error) {
	var out []model.RunRef
	if keys == nil {
		rows, err := s.DB.QueryContext(ctx, sqlstore.LatestRunsAll.SQLite(), s.app)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var r model.RunRef
			if err := rows.Scan(&r.EvaluationKey, &r.ID); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	stmt, err := s.DB.PrepareContext(ctx, `SELECT id FROM latest_runs WHERE app = ? AND evaluation_key = ?`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer stmt.Close()
	for _, k := range keys {
		var id string
		switch err := stmt.QueryRowContext(ctx, s.app, k).Scan(&id); {
		case err == sql.ErrNoRows:
		case err != nil:
			return nil, fmt.Errorf("store: %w", err)
		default:
			out = append(out, model.RunRef{EvaluationKey: k, ID: id})
		}
	}
	return out, nil
}

// Values returns the values of metric in run (what scoring reads), in task
// and scorer order.
func (s *Store) Values(ctx context.Context, run model.RunRef, metric string) ([]model.MetricValue, error) {
	s.valuesOnce.Do(func() {
		s.valuesStmt, s.valuesErr = s.DB.PrepareContext(ctx, sqlstore.MetricValues.SQLite())
	})
	if s.valuesErr != nil {
		return nil, fmt.Errorf("store: %w", s.valuesErr)
	}
	rows, err := s.valuesStmt.QueryContext(ctx, s.app, run.EvaluationKey, run.ID, metric)
	return sqlstore.ScanValues(ctx, dbQuerier{s.DB}, s.app, run, metric, sqlRows(rows, err), err, func(err error) error { return fmt.Errorf("store: %w", err) })
}
