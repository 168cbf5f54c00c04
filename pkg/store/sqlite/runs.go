package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/lfcli/lf/pkg/model"
)

// RecordRun stores an evaluation run produced by an evaluation (AgentLeak,
// agent risk, ...), replacing a run with the same evaluation key and id.
func (s *Store) RecordRun(ctx context.Context, run model.EvaluationRun) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		return putRun(ctx, tx, run, "")
	})
}

// putRun writes run (and its metric values) inside tx, replacing any run with
// the same evaluation key and id. yamlText is the run's canonical YAML when it
// was added from a file ("" for runs recorded by an evaluation).
func putRun(ctx context.Context, tx *sql.Tx, run model.EvaluationRun, yamlText string) error {
	head := run
	head.Results = nil
	body, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("store: encode run: %w", err)
	}
	if err := deleteRun(ctx, tx, run.EvaluationKey, run.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO evaluation_runs (evaluation_key, id, created_at, status, body, yaml) VALUES (?, ?, ?, ?, ?, ?)`,
		run.EvaluationKey, run.ID, FormatTime(run.CreatedAt), run.Status, string(body), yamlText); err != nil {
		return fmt.Errorf("store: insert run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	if err := insertValues(ctx, tx, run.EvaluationKey, run.ID, run.Results); err != nil {
		return err
	}
	return refreshLatest(ctx, tx, run.EvaluationKey)
}

// insertValues writes the metric values of results of one run inside tx.
func insertValues(ctx context.Context, tx *sql.Tx, evaluationKey, runID string, results []model.Result) error {
	stmt, err := tx.PrepareContext(ctx,
		`INSERT INTO metric_values (evaluation_key, run_id, task_specification_key, scorer_key, metric_key, value) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer stmt.Close()
	for _, r := range results {
		for _, m := range sortedMetrics(r.Metrics) {
			if _, err := stmt.ExecContext(ctx, evaluationKey, runID, r.TaskSpecificationKey, r.ScorerKey, m, r.Metrics[m]); err != nil {
				return fmt.Errorf("store: insert metric value %s/%s %s %s: %w", evaluationKey, runID, r.TaskSpecificationKey, m, err)
			}
		}
	}
	return nil
}

func sortedMetrics(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// refreshLatest recomputes the latest completed run of one evaluation key,
// walking the evaluation_runs_latest index from its end.
func refreshLatest(ctx context.Context, tx *sql.Tx, evaluationKey string) error {
	var id, created string
	err := tx.QueryRowContext(ctx, `SELECT id, created_at FROM evaluation_runs
		WHERE evaluation_key = ? AND status = 'completed'
		ORDER BY created_at DESC, id DESC LIMIT 1`, evaluationKey).Scan(&id, &created)
	switch {
	case err == sql.ErrNoRows:
		_, err = tx.ExecContext(ctx, `DELETE FROM latest_runs WHERE evaluation_key = ?`, evaluationKey)
	case err == nil:
		_, err = tx.ExecContext(ctx, `INSERT INTO latest_runs (evaluation_key, id, created_at) VALUES (?, ?, ?)
			ON CONFLICT (evaluation_key) DO UPDATE SET id = excluded.id, created_at = excluded.created_at`, evaluationKey, id, created)
	}
	if err != nil {
		return fmt.Errorf("store: latest run of %s: %w", evaluationKey, err)
	}
	return nil
}

// deleteRun removes a run and its metric values inside tx.
func deleteRun(ctx context.Context, tx *sql.Tx, evaluationKey, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM metric_values WHERE evaluation_key = ? AND run_id = ?`, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_runs WHERE evaluation_key = ? AND id = ?`, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return refreshLatest(ctx, tx, evaluationKey)
}
