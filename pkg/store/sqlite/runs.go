package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
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
	body, err := sqlstore.RunHead(run)
	if err != nil {
		return err
	}
	if replace {
		if err := deleteRun(ctx, tx, w.app, run.EvaluationKey, run.ID); err != nil {
			return err
		}
	}
	if err := w.exec(ctx, sqlstore.InsertRun.SQLite(), w.app, run.EvaluationKey, run.ID, backend.FormatTime(run.CreatedAt), run.Status, body, yamlText); err != nil {
		return fmt.Errorf("store: insert run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	if err := w.write(ctx, run.EvaluationKey, run.ID, run.Results); err != nil {
		return err
	}
	return w.refreshLatest(ctx, run.EvaluationKey)
}

// valuesPerInsert is the most metric values one INSERT statement carries.
const valuesPerInsert = 128

// insertValuesSQL inserts values of one metric and scorer of one run: app,
// evaluation key, run id, metric and scorer are bound once (?1 to ?5), each
// row binds only its task and value. The driver copies every text parameter
// into C memory, so binding the shared ones per row was a third of the cost
// of a recorded scan's writes. OR FAIL: the transaction is rolled back as a
// whole on a duplicate anyway, so the statement needs no statement journal.
const insertValuesSQL = `INSERT OR FAIL INTO metric_values (app, evaluation_key, run_id, metric_key, scorer_key, task_specification_key, value)
	SELECT ?1, ?2, ?3, ?4, ?5, column1, column2 FROM (VALUES `

// valueWriter inserts metric values inside one transaction, in primary-key
// order (metric, task, scorer), so that they append to the B-tree at a few
// places instead of all over it. Its statements are prepared once per
// transaction (database/sql closes them with it); each INSERT carries up to
// valuesPerInsert rows: a 50 MB file of runs (7,645 runs of 100 values)
// costs about 7,645 statement executions instead of 764,500.
type valueWriter struct {
	tx      *sql.Tx
	app     string
	stmts   map[string]*sql.Stmt // the per-run statements, by SQL text
	inserts map[int]*sql.Stmt    // the INSERTs of values, by row count
	// Reused from batch to batch: the metric names of a batch, its results
	// in key order, the values of one metric, the parameters of one INSERT.
	metrics []string
	byTask  []int
	rows    []valueRow
	args    []any
}

type valueRow = runbatch.Row

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

func newValueWriter(tx *sql.Tx, app string) *valueWriter {
	return &valueWriter{tx: tx, app: app}
}

// write inserts the values of results of run evaluationKey/runID.
func (w *valueWriter) write(ctx context.Context, evaluationKey, runID string, results []model.Result) error {
	w.order(results)
	for _, m := range w.metrics {
		w.rows = w.rows[:0]
		for _, i := range w.byTask {
			r := &results[i]
			if v, ok := r.Metrics[m]; ok {
				w.rows = append(w.rows, valueRow{Task: r.TaskSpecificationKey, Scorer: r.ScorerKey, Value: v})
			}
		}
		if err := w.writeRows(ctx, evaluationKey, runID, m, w.rows); err != nil {
			return err
		}
	}
	return nil
}

// writeRows inserts the values of one metric of run evaluationKey/runID,
// rows in task and scorer order.
func (w *valueWriter) writeRows(ctx context.Context, evaluationKey, runID, metric string, rows []valueRow) error {
	for len(rows) > 0 {
		n := insertSize(rows)
		if err := w.insert(ctx, evaluationKey, runID, metric, rows[:n]); err != nil {
			if n == 1 {
				return fmt.Errorf("store: insert metric value %s/%s %s %s: %w", evaluationKey, runID, rows[0].Task, metric, err)
			}
			return fmt.Errorf("store: insert metric values of run %s/%s: %w", evaluationKey, runID, err)
		}
		rows = rows[n:]
	}
	return nil
}

// insertSize is how many of rows the next INSERT takes: those of the first
// row's scorer, at most valuesPerInsert, rounded down to a power of two so
// that a handful of statements serve every batch.
func insertSize(rows []valueRow) int {
	n := 1
	for n < len(rows) && n < valuesPerInsert && rows[n].Scorer == rows[0].Scorer {
		n++
	}
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

// order sorts the metric names of results and the results by task and
// scorer: values written metric by metric in that order follow the table's
// primary key (run, metric, task, scorer).
func (w *valueWriter) order(results []model.Result) {
	w.metrics = w.metrics[:0]
	seen := map[string]bool{}
	for i := range results {
		for m := range results[i].Metrics {
			if !seen[m] {
				seen[m] = true
				w.metrics = append(w.metrics, m)
			}
		}
	}
	slices.Sort(w.metrics)
	w.byTask = w.byTask[:0]
	for i := range results {
		w.byTask = append(w.byTask, i)
	}
	slices.SortFunc(w.byTask, func(a, b int) int {
		ra, rb := &results[a], &results[b]
		if c := strings.Compare(ra.TaskSpecificationKey, rb.TaskSpecificationKey); c != 0 {
			return c
		}
		return strings.Compare(ra.ScorerKey, rb.ScorerKey)
	})
}

// insert inserts rows, values of metric of one scorer.
func (w *valueWriter) insert(ctx context.Context, evaluationKey, runID, metric string, rows []valueRow) error {
	n := len(rows)
	st, ok := w.inserts[n]
	if !ok {
		var err error
		if st, err = w.stmt(ctx, insertValuesQuery(n)); err != nil {
			return err
		}
		if w.inserts == nil {
			w.inserts = map[int]*sql.Stmt{}
		}
		w.inserts[n] = st
	}
	w.args = append(w.args[:0], w.app, evaluationKey, runID, metric, rows[0].Scorer)
	for i := range rows {
		w.args = append(w.args, rows[i].Task, rows[i].Value)
	}
	_, err := st.ExecContext(ctx, w.args...)
	return err
}

// insertValuesQuery is the INSERT of n values of one metric and scorer.
func insertValuesQuery(n int) string {
	var b strings.Builder
	b.WriteString(insertValuesSQL)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?)")
	}
	b.WriteString(")")
	return b.String()
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
		err = w.exec(ctx, sqlstore.DeleteLatest.SQLite(), w.app, evaluationKey)
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
	if _, err := deleteValues(ctx, tx, app, evaluationKey, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, sqlstore.DeleteRunRow.SQLite(), app, evaluationKey, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return refreshLatest(ctx, tx, app, evaluationKey)
}

// deleteValues removes the metric values of a run (rows and blocks) and
// tells how many there were.
func deleteValues(ctx context.Context, tx *sql.Tx, app, evaluationKey, id string) (int64, error) {
	var inBlocks int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(n_values), 0) FROM run_value_blocks WHERE app = ? AND evaluation_key = ? AND run_id = ?`,
		app, evaluationKey, id).Scan(&inBlocks); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	if inBlocks > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_value_blocks WHERE app = ? AND evaluation_key = ? AND run_id = ?`, app, evaluationKey, id); err != nil {
			return 0, fmt.Errorf("store: %w", err)
		}
	}
	n, err := execCount(ctx, tx, sqlstore.DeleteValues.SQLite(), app, evaluationKey, id)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	if _, err := tx.ExecContext(ctx, sqlstore.DeleteRunPartials.SQLite(), app, evaluationKey, id); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return n + inBlocks, nil
}
