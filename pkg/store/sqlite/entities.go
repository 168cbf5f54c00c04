package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
)

// putEntity upserts an entity inside tx.
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

// deleteEntity deletes an entity inside tx and reports whether it existed.
func deleteEntity(ctx context.Context, tx *sql.Tx, app string, kind model.Kind, key string) (bool, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM entities WHERE app = ? AND kind = ? AND key = ?`, app, string(kind), key)
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// entities lists the entities of a kind, sorted by key. q is the store's DB
// or a transaction.
func entities(ctx context.Context, q querier, app string, kind model.Kind) ([]backend.Entity, error) {
	out, err := rowset.Entities(kind)(q.QueryContext(ctx, `SELECT key, body, yaml FROM entities WHERE app = ? AND kind = ? ORDER BY key`, app, string(kind)))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// runs lists the stored runs sorted by evaluation key and id.
func runs(ctx context.Context, q querier, app string) ([]backend.RunRow, error) {
	out, err := rowset.RunRows(q.QueryContext(ctx, `SELECT r.evaluation_key, r.id, r.created_at, r.status, r.yaml,
		(SELECT count(*) FROM metric_values v WHERE v.app = r.app AND v.evaluation_key = r.evaluation_key AND v.run_id = r.id)
		+ (SELECT coalesce(sum(b.n_values), 0) FROM run_value_blocks b WHERE b.app = r.app AND b.evaluation_key = r.evaluation_key AND b.run_id = r.id),
		coalesce(json_extract(r.body, '$.metadata.tool'), ''),
		coalesce(json_extract(r.body, '$.metadata.source_file'), ''),
		coalesce(json_extract(r.body, '$.metadata.original_names.evaluation_key'), ''),
		coalesce(json_extract(r.body, '$.metadata.original_names.id'), '')
		FROM evaluation_runs r WHERE r.app = ? ORDER BY r.evaluation_key, r.id`, app))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// loadRun loads one run with its results.
func loadRun(ctx context.Context, q querier, app, evaluationKey, id string) (*model.EvaluationRun, error) {
	rows, err := q.QueryContext(ctx, `SELECT body FROM evaluation_runs WHERE app = ? AND evaluation_key = ? AND id = ?`, app, evaluationKey, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	bodies, err := rowset.Collect(rows, func(b *string) []any { return []any{b} })
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if len(bodies) == 0 {
		return nil, nil
	}
	blocks, err := runBlocks(ctx, q, app, evaluationKey, id)
	if err != nil {
		return nil, err
	}
	vrows, err := q.QueryContext(ctx, `SELECT task_specification_key, scorer_key, metric_key, value FROM metric_values
		WHERE app = ? AND evaluation_key = ? AND run_id = ? ORDER BY task_specification_key, scorer_key, metric_key`, app, evaluationKey, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer vrows.Close()
	if len(blocks) == 0 {
		return rowset.Run(bodies[len(bodies)-1], evaluationKey, id, vrows)
	}
	// A streamed run: its values are in blocks (and none in rows).
	vals, err := rowset.Collect(vrows, func(v *runbatch.Value) []any { return []any{&v.Task, &v.Scorer, &v.Metric, &v.Value} })
	if err == nil {
		vals, err = runbatch.AppendValues(vals, blocks)
	}
	if err != nil {
		return nil, fmt.Errorf("store: run %s/%s: %w", evaluationKey, id, err)
	}
	return rowset.Run(bodies[len(bodies)-1], evaluationKey, id, &runbatch.ValueRows{Values: vals})
}

// runBlocks reads the blocks of a run's values (run_value_blocks), in
// order.
func runBlocks(ctx context.Context, q querier, app, evaluationKey, id string) ([][]byte, error) {
	rows, err := q.QueryContext(ctx, `SELECT data FROM run_value_blocks WHERE app = ? AND evaluation_key = ? AND run_id = ? ORDER BY block`, app, evaluationKey, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// LatestRuns returns the latest completed run of each evaluation key in
// keys, or of every key when keys is nil (what scoring reads).
func (s *Store) LatestRuns(ctx context.Context, keys []string) ([]model.RunRef, error) {
	var out []model.RunRef
	if keys == nil {
		rows, err := s.DB.QueryContext(ctx, `SELECT evaluation_key, id FROM latest_runs WHERE app = ? ORDER BY evaluation_key`, s.app)
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
		s.valuesStmt, s.valuesErr = s.DB.PrepareContext(ctx, `SELECT task_specification_key, scorer_key, value FROM metric_values
		WHERE app = ? AND evaluation_key = ? AND run_id = ? AND metric_key = ?`)
	})
	if s.valuesErr != nil {
		return nil, fmt.Errorf("store: %w", s.valuesErr)
	}
	rows, err := s.valuesStmt.QueryContext(ctx, s.app, run.EvaluationKey, run.ID, metric)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []model.MetricValue
	for rows.Next() {
		var v model.MetricValue
		if err := rows.Scan(&v.TaskSpecificationKey, &v.ScorerKey, &v.Value); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	blocks, err := runBlocks(ctx, s.DB, s.app, run.EvaluationKey, run.ID)
	if err != nil || len(blocks) == 0 {
		return out, err
	}
	if out, err = runbatch.AppendMetricValues(out, blocks, metric); err != nil {
		return nil, fmt.Errorf("store: run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	return out, nil
}
