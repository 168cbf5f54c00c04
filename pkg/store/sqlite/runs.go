package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// RecordRun stores an evaluation run produced by an evaluation (AgentLeak,
// agent risk, ...), replacing a run with the same evaluation key and id.
func (s *Store) RecordRun(ctx context.Context, run model.EvaluationRun) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		return putRun(ctx, newValueWriter(tx, s.app), run, "", true)
	})
}

// putRun writes run (and its metric values) through w's transaction. With
// replace it first removes any run with the same evaluation key and id (the
// caller passes false only when it has just seen there is none). yamlText is
// the run's canonical YAML when it was added from a file ("" for runs
// recorded by an evaluation).
func putRun(ctx context.Context, w *valueWriter, run model.EvaluationRun, yamlText string, replace bool) error {
	tx := w.tx
	head := run
	head.Results = nil
	body, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("store: encode run: %w", err)
	}
	if replace {
		if err := deleteRun(ctx, tx, w.app, run.EvaluationKey, run.ID); err != nil {
			return err
		}
	}
	if err := w.exec(ctx,
		`INSERT INTO evaluation_runs (app, evaluation_key, id, created_at, status, body, yaml) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		w.app, run.EvaluationKey, run.ID, backend.FormatTime(run.CreatedAt), run.Status, string(body), yamlText); err != nil {
		return fmt.Errorf("store: insert run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	if err := w.write(ctx, run.EvaluationKey, run.ID, run.Results); err != nil {
		return err
	}
	return w.refreshLatest(ctx, run.EvaluationKey)
}

// insertValues writes the metric values of results of one run inside tx.
func insertValues(ctx context.Context, tx *sql.Tx, app, evaluationKey, runID string, results []model.Result) error {
	return newValueWriter(tx, app).write(ctx, evaluationKey, runID, results)
}

// valuesPerInsert is how many metric values one INSERT statement carries
// (7 parameters each, far below SQLite's limit of 32,766 parameters).
const valuesPerInsert = 128

const insertValuesSQL = `INSERT INTO metric_values (app, evaluation_key, run_id, metric_key, task_specification_key, scorer_key, value) VALUES `

// valueWriter inserts metric values inside one transaction. Its statements
// are prepared once and reused for every run of the transaction (database/sql
// closes them with it); each INSERT carries up to valuesPerInsert rows, in
// primary-key order: a 50 MB file of runs (7,645 runs of 100 values) costs
// 7,645 statement executions instead of 764,500.
type valueWriter struct {
	tx    *sql.Tx
	app   string
	stmts map[string]*sql.Stmt // the per-run statements, by SQL text
	rows  []valueRow
	args  []any
}

// stmt returns the statement of query, prepared on first use.
func (w *valueWriter) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if w.stmts == nil {
		w.stmts = map[string]*sql.Stmt{}
	}
	w.stmts[query] = st
	return st, nil
}

// exec runs query with args through its prepared statement.
func (w *valueWriter) exec(ctx context.Context, query string, args ...any) error {
	st, err := w.stmt(ctx, query)
	if err == nil {
		_, err = st.ExecContext(ctx, args...)
	}
	return err
}

type valueRow struct {
	metric, task, scorer string
	value                float64
}

func newValueWriter(tx *sql.Tx, app string) *valueWriter { return &valueWriter{tx: tx, app: app} }

// write inserts the values of results of run evaluationKey/runID.
func (w *valueWriter) write(ctx context.Context, evaluationKey, runID string, results []model.Result) error {
	w.rows = w.rows[:0]
	for _, r := range results {
		for m, v := range r.Metrics {
			w.rows = append(w.rows, valueRow{m, r.TaskSpecificationKey, r.ScorerKey, v})
		}
	}
	if len(w.rows) == 0 {
		return nil
	}
	// The table is clustered by (run, metric, task, scorer): rows in that
	// order append to the B-tree instead of splitting pages in its middle.
	slices.SortFunc(w.rows, func(a, b valueRow) int {
		if c := strings.Compare(a.metric, b.metric); c != 0 {
			return c
		}
		if c := strings.Compare(a.task, b.task); c != 0 {
			return c
		}
		return strings.Compare(a.scorer, b.scorer)
	})
	fail := func(err error) error {
		return fmt.Errorf("store: insert metric values of run %s/%s: %w", evaluationKey, runID, err)
	}
	for rows := w.rows; len(rows) > 0; {
		n := min(len(rows), valuesPerInsert)
		// One statement per row count: runs of a file mostly have the same
		// number of values, so the last, shorter chunk reuses its statement too.
		st, err := w.stmt(ctx, insertValuesSQL+strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", n), ", "))
		if err != nil {
			return fail(err)
		}
		if _, err := st.ExecContext(ctx, w.bind(evaluationKey, runID, rows[:n])...); err != nil {
			if n == 1 {
				r := rows[0]
				return fmt.Errorf("store: insert metric value %s/%s %s %s: %w", evaluationKey, runID, r.task, r.metric, err)
			}
			return fail(err)
		}
		rows = rows[n:]
	}
	return nil
}

// bind fills w.args with the parameters of rows.
func (w *valueWriter) bind(evaluationKey, runID string, rows []valueRow) []any {
	w.args = w.args[:0]
	for i := range rows {
		r := &rows[i]
		w.args = append(w.args, w.app, evaluationKey, runID, r.metric, r.task, r.scorer, r.value)
	}
	return w.args
}

// refreshLatest recomputes the latest completed run of one evaluation key,
// walking the evaluation_runs_latest index from its end.
func refreshLatest(ctx context.Context, tx *sql.Tx, app, evaluationKey string) error {
	return newValueWriter(tx, app).refreshLatest(ctx, evaluationKey)
}

func (w *valueWriter) refreshLatest(ctx context.Context, evaluationKey string) error {
	var id, created string
	sel, err := w.stmt(ctx, `SELECT id, created_at FROM evaluation_runs
		WHERE app = ? AND evaluation_key = ? AND status = 'completed'
		ORDER BY created_at DESC, id DESC LIMIT 1`)
	if err == nil {
		err = sel.QueryRowContext(ctx, w.app, evaluationKey).Scan(&id, &created)
	}
	switch {
	case err == sql.ErrNoRows:
		err = w.exec(ctx, `DELETE FROM latest_runs WHERE app = ? AND evaluation_key = ?`, w.app, evaluationKey)
	case err == nil:
		err = w.exec(ctx, `INSERT INTO latest_runs (app, evaluation_key, id, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (app, evaluation_key) DO UPDATE SET id = excluded.id, created_at = excluded.created_at`, w.app, evaluationKey, id, created)
	}
	if err != nil {
		return fmt.Errorf("store: latest run of %s: %w", evaluationKey, err)
	}
	return nil
}

// deleteRun removes a run and its metric values inside tx.
func deleteRun(ctx context.Context, tx *sql.Tx, app, evaluationKey, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM metric_values WHERE app = ? AND evaluation_key = ? AND run_id = ?`, app, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_runs WHERE app = ? AND evaluation_key = ? AND id = ?`, app, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return refreshLatest(ctx, tx, app, evaluationKey)
}
