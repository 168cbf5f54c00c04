package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// LatestRuns returns the latest completed run of each evaluation key in
// keys (one query for all of them), or of every key when keys is nil.
func (s *Store) LatestRuns(ctx context.Context, keys []string) ([]model.RunRef, error) {
	var rows pgx.Rows
	var err error
	if keys == nil {
		rows, err = s.Pool.Query(ctx, sqlstore.LatestRunsAll.Postgres(), s.app)
	} else {
		// In the order of keys, as SQLite answers.
		rows, err = s.Pool.Query(ctx, `SELECT l.evaluation_key, l.id
			FROM unnest($2::text[]) WITH ORDINALITY AS k(key, n) JOIN latest_runs l ON l.app = $1 AND l.evaluation_key = k.key
			ORDER BY k.n`, s.app, keys)
	}
	if err != nil {
		return nil, s.errf("latest runs", err)
	}
	defer rows.Close()
	var out []model.RunRef
	for rows.Next() {
		var r model.RunRef
		if err := rows.Scan(&r.EvaluationKey, &r.ID); err != nil {
			return nil, s.errf("latest runs", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Values returns the values of metric in run (what scoring reads), in task
// and scorer order.
func (s *Store) Values(ctx context.Context, run model.RunRef, metric string) ([]model.MetricValue, error) {
	rows, err := s.Pool.Query(ctx, sqlstore.MetricValues.Postgres(), s.app, run.EvaluationKey, run.ID, metric)
	return sqlstore.ScanValues(ctx, pgQuerier{s.Pool}, s.app, run, metric, rows, err, func(err error) error { return s.errf("values", err) })
}

// RecordRun stores an evaluation run produced by an evaluation, replacing a
// run with the same evaluation key and id.
func (s *Store) RecordRun(ctx context.Context, run model.EvaluationRun) error {
	return s.withTx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, s.app, run.EvaluationKey); err != nil {
			return err
		}
		return putRun(ctx, tx, s.app, run, "", true)
	})
}

// lockKey takes the transaction-scoped advisory lock of an evaluation key:
// writers of runs of one key (from any process) take turns, so that each
// sees the others' runs when it brings latest_runs up to date.
func lockKey(ctx context.Context, tx pgx.Tx, app, evaluationKey string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('lf.runs/' || $1 || '/' || $2, 0))`, app, evaluationKey); err != nil {
		return fmt.Errorf("store: lock runs of %s: %w", evaluationKey, err)
	}
	return nil
}

// putRunYAML stores a run added from a file unless the stored one has the
// same YAML.
func putRunYAML(ctx context.Context, tx pgx.Tx, app string, run model.EvaluationRun, yamlText string) (backend.Outcome, error) {
	if err := lockKey(ctx, tx, app, run.EvaluationKey); err != nil {
		return "", err
	}
	var yml string
	err := tx.QueryRow(ctx, sqlstore.RunYAML.Postgres(), app, run.EvaluationKey, run.ID).Scan(&yml)
	outcome := backend.Updated
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		outcome = backend.Created
	case err != nil:
		return "", fmt.Errorf("store: run %s/%s: %w", run.EvaluationKey, run.ID, err)
	case yml == yamlText:
		return backend.Unchanged, nil
	}
	return outcome, putRun(ctx, tx, app, run, yamlText, outcome == backend.Updated)
}

// putRun writes run and its metric values inside tx, which holds the lock
// of the run's evaluation key. With replace it first removes a run with the
// same key and id.
func putRun(ctx context.Context, tx pgx.Tx, app string, run model.EvaluationRun, yamlText string, replace bool) error {
	body, err := sqlstore.RunHead(run)
	if err != nil {
		return err
	}
	if replace {
		if err := deleteValuesAndRun(ctx, tx, app, run.EvaluationKey, run.ID); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, sqlstore.InsertRun.Postgres(),
		app, run.EvaluationKey, run.ID, backend.FormatTime(run.CreatedAt), run.Status, body, yamlText); err != nil {
		return fmt.Errorf("store: insert run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	if err := copyValues(ctx, tx, app, run.EvaluationKey, run.ID, run.Results); err != nil {
		return err
	}
	return refreshLatest(ctx, tx, app, run.EvaluationKey)
}

var valueColumns = []string{"app", "evaluation_key", "run_id", "metric_key", "task_specification_key", "scorer_key", "value"}

// copyValues writes the metric values of results of one run with COPY.
func copyValues(ctx context.Context, tx pgx.Tx, app, evaluationKey, runID string, results []model.Result) error {
	var rows [][]any
	for _, r := range results {
		for m, v := range r.Metrics {
			rows = append(rows, []any{app, evaluationKey, runID, m, r.TaskSpecificationKey, r.ScorerKey, v})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"metric_values"}, valueColumns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("store: insert metric values of run %s/%s: %w", evaluationKey, runID, err)
	}
	return nil
}

// refreshLatest recomputes the latest completed run of one evaluation key
// in one statement (the caller holds the key's lock).
func refreshLatest(ctx context.Context, tx pgx.Tx, app, evaluationKey string) error {
	tag, err := tx.Exec(ctx, `INSERT INTO latest_runs (app, evaluation_key, id, created_at)
		SELECT app, evaluation_key, id, created_at FROM evaluation_runs
		WHERE app = $1 AND evaluation_key = $2 AND status = 'completed'
		ORDER BY created_at DESC, id DESC LIMIT 1
		ON CONFLICT (app, evaluation_key) DO UPDATE SET id = excluded.id, created_at = excluded.created_at`, app, evaluationKey)
	if err == nil && tag.RowsAffected() == 0 {
		_, err = tx.Exec(ctx, sqlstore.DeleteLatest.Postgres(), app, evaluationKey)
	}
	if err != nil {
		return fmt.Errorf("store: latest run of %s: %w", evaluationKey, err)
	}
	return nil
}

// deleteRun removes a run and its metric values inside tx (holding the
// key's lock) and brings the latest run of its key up to date.
func deleteRun(ctx context.Context, tx pgx.Tx, app, evaluationKey, id string) error {
	if err := deleteValuesAndRun(ctx, tx, app, evaluationKey, id); err != nil {
		return err
	}
	return refreshLatest(ctx, tx, app, evaluationKey)
}

func deleteValuesAndRun(ctx context.Context, tx pgx.Tx, app, evaluationKey, id string) error {
	if _, err := deleteValues(ctx, tx, app, evaluationKey, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sqlstore.DeleteRunRow.Postgres(), app, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// deleteValues removes the metric values of a run (rows and blocks) and
// tells how many there were.
func deleteValues(ctx context.Context, tx pgx.Tx, app, evaluationKey, id string) (int64, error) {
	var inBlocks int64
	if err := tx.QueryRow(ctx, `WITH d AS (DELETE FROM run_value_blocks WHERE app = $1 AND evaluation_key = $2 AND run_id = $3 RETURNING n_values)
		SELECT coalesce(sum(n_values), 0)::bigint FROM d`, app, evaluationKey, id).Scan(&inBlocks); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	tag, err := tx.Exec(ctx, sqlstore.DeleteValues.Postgres(), app, evaluationKey, id)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	if _, err := tx.Exec(ctx, sqlstore.DeleteRunPartials.Postgres(), app, evaluationKey, id); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return tag.RowsAffected() + inBlocks, nil
}
