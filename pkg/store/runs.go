package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/model"
)

// TimeFormat is how times are stored: RFC 3339 in UTC with fixed-width
// nanoseconds, so that text order is time order.
const TimeFormat = "2006-01-02T15:04:05.000000000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// RecordRun stores an evaluation run produced by an evaluation (AgentLeak,
// agent risk, ...), replacing a run with the same evaluation key and id.
func (s *Store) RecordRun(ctx context.Context, run model.EvaluationRun) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		return PutRun(ctx, tx, run, "")
	})
}

// PutRun writes run (and its metric values) inside tx, replacing any run with
// the same evaluation key and id. comments is the run's comment map as JSON.
func PutRun(ctx context.Context, tx *sql.Tx, run model.EvaluationRun, comments string) error {
	body, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("store: encode run: %w", err)
	}
	if err := DeleteRun(ctx, tx, run.EvaluationKey, run.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO evaluation_runs (evaluation_key, id, created_at, status, body, comments) VALUES (?, ?, ?, ?, ?, ?)`,
		run.EvaluationKey, run.ID, FormatTime(run.CreatedAt), run.Status, string(body), comments); err != nil {
		return fmt.Errorf("store: insert run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	stmt, err := tx.PrepareContext(ctx,
		`INSERT INTO metric_values (evaluation_key, run_id, task_specification_key, scorer_key, metric_key, value) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer stmt.Close()
	for _, r := range run.Results {
		for m, v := range r.Metrics {
			if _, err := stmt.ExecContext(ctx, run.EvaluationKey, run.ID, r.TaskSpecificationKey, r.ScorerKey, m, v); err != nil {
				return fmt.Errorf("store: insert metric value: %w", err)
			}
		}
	}
	return nil
}

// DeleteRun removes a run and its metric values inside tx.
func DeleteRun(ctx context.Context, tx *sql.Tx, evaluationKey, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM metric_values WHERE evaluation_key = ? AND run_id = ?`, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_runs WHERE evaluation_key = ? AND id = ?`, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}
