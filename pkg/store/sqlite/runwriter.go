package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
)

// RunWriter streams the results of a large evaluation run into the store.
// The run is written with status "running" first and takes its final status
// in Finish: risk scorers read only completed runs, so they never see a run
// that is still being written, and a process killed mid-run leaves a run
// marked running, not a half-written completed one.
//
// The values go into metric_values in the order of its primary key (metric,
// task, scorer within the run), so that they append to the B-tree at a few
// places. Results arrive in input order, and inserting them batch by batch
// scattered every batch over the run's whole part of the tree, rewriting
// most of its pages each time: a recorded scan of 92 MB of traces cost 3.5
// times an unrecorded one. So the writer holds the values, compactly (a
// result index and the value, 16 bytes each), and Finish writes them sorted
// in the transaction that completes the run. (Writing a small run's values
// in a few batches while the scan goes on was tried: it cost more CPU and
// more wall time on the 2-core test machine than one write at the end.) Beyond
// runbatch.HeldValues values (a run of a few hundred megabytes of traces) it moves
// them to a stage, a temporary table of the writer's own connection (not
// journaled in the store's WAL, gone with the connection), and Finish moves
// the stage into metric_values sorted by SQLite: memory stays bounded
// however large the run.
type RunWriter struct {
	*runbatch.Queue // Add, Written, ID
	st              *Store
	held            runbatch.Held
	values          *valueWriter // its buffers serve every write
	stage           *runStage    // nil until the run outgrows the held values
	beat            time.Time    // the last heartbeat
}

// heartbeatEvery is how often a long run's writer records that it is alive.
const heartbeatEvery = time.Minute

// runWriterBatch is how many results the writer queues before it takes
// them into its held values.
const runWriterBatch = runbatch.HoldBatch

// BeginRun records the head of run (its Results are ignored) as running,
// replacing a run with the same evaluation key and id.
func (s *Store) BeginRun(ctx context.Context, run model.EvaluationRun) (backend.RunWriter, error) {
	head := runbatch.Head(run)
	host, _ := os.Hostname()
	if err := s.withTx(ctx, func(tx *sql.Tx) error {
		if err := putRun(ctx, newValueWriter(tx, s.app), head, "", true); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE evaluation_runs SET writer_pid = ?, writer_host = ?, heartbeat_at = ?
			WHERE app = ? AND evaluation_key = ? AND id = ?`, os.Getpid(), host, backend.FormatTime(time.Now()), s.app, head.EvaluationKey, head.ID); err != nil {
			return fmt.Errorf("store %s: begin run %s/%s: %w", s.Path, head.EvaluationKey, head.ID, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	w := &RunWriter{st: s, values: newValueWriter(nil, s.app), beat: time.Now()}
	w.Queue = runbatch.NewSized(head, runbatch.HoldBatch, w.hold)
	return w, nil
}

// hold takes a batch of results into the writer's held values, staging
// them when there are too many, and records the heartbeat now and then.
func (w *RunWriter) hold(ctx context.Context, results []model.Result) error {
	w.held.Add(results)
	if w.held.Full() && w.st.Path != ":memory:" {
		if err := w.spill(ctx); err != nil {
			return err
		}
	}
	if time.Since(w.beat) < heartbeatEvery {
		return nil
	}
	w.beat = time.Now()
	return w.st.withTx(ctx, func(tx *sql.Tx) error { return w.heartbeat(ctx, tx) })
}

// spill moves the held values to the stage.
func (w *RunWriter) spill(ctx context.Context) error {
	if w.stage == nil {
		stage, err := w.st.newStage(ctx)
		if err != nil {
			return fmt.Errorf("store %s: run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
		}
		w.stage = stage
	}
	if err := w.stage.values.writeHeld(ctx, &w.held, "", ""); err != nil {
		return fmt.Errorf("store %s: run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
	}
	w.held.Reset()
	return nil
}

// heartbeat records that the run's writer is still at work.
func (w *RunWriter) heartbeat(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE evaluation_runs SET heartbeat_at = ? WHERE app = ? AND evaluation_key = ? AND id = ?`,
		backend.FormatTime(time.Now()), w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
		return fmt.Errorf("store %s: run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
	}
	return nil
}

// Finish writes the run's values and gives it its final status (completed
// or failed) in the same transaction, which makes a completed run visible
// to scorers with all its values.
func (w *RunWriter) Finish(ctx context.Context, status string) error {
	w.held.Add(w.Take())
	// A writer that dies before its final status leaves its values behind
	// (the store's tests simulate it).
	abandon := os.Getenv(backend.AbandonEnv) == "1"
	if w.stage == nil {
		return w.st.withTx(ctx, func(tx *sql.Tx) error {
			w.values.reset(tx)
			if err := w.values.writeHeld(ctx, &w.held, w.Run.EvaluationKey, w.Run.ID); err != nil || abandon {
				return err
			}
			return w.finish(ctx, tx, status)
		})
	}
	if err := w.spill(ctx); err != nil {
		return err
	}
	defer w.closeStage(ctx)
	return w.stage.finish(ctx, func(tx *sql.Tx) error {
		if err := w.stage.move(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil || abandon {
			return err
		}
		return w.finish(ctx, tx, status)
	})
}

// finish gives the run its final status and brings the evaluation's latest
// run up to date.
func (w *RunWriter) finish(ctx context.Context, tx *sql.Tx, status string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE evaluation_runs SET status = ?, body = json_set(body, '$.status', ?),
		writer_pid = 0, writer_host = '', heartbeat_at = '' WHERE app = ? AND evaluation_key = ? AND id = ?`,
		status, status, w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
		return fmt.Errorf("store: finish run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
	}
	return refreshLatest(ctx, tx, w.st.app, w.Run.EvaluationKey)
}

// Abort removes the run and what was written of it.
func (w *RunWriter) Abort(ctx context.Context) error {
	w.Take()
	w.held.Reset()
	w.closeStage(ctx)
	return w.st.withTx(ctx, func(tx *sql.Tx) error { return deleteRun(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID) })
}

// closeStage drops the stage, if any, and gives its connection back.
func (w *RunWriter) closeStage(ctx context.Context) {
	if w.stage != nil {
		w.stage.close(ctx)
		w.stage = nil
	}
}

// runStage holds the values of a run being written, in a temporary table of
// a connection of its own: a plain rowid table that each batch appends to.
type runStage struct {
	conn   *sql.Conn
	values *valueWriter // its INSERTs go into the stage
}

// stageValuesSQL appends values of one metric and scorer to the stage; ?1 to
// ?3 (app, evaluation key, run id) are bound as for metric_values and unused.
const stageValuesSQL = `INSERT INTO temp.run_values_stage (metric_key, scorer_key, task_specification_key, value)
	SELECT ?4, ?5, column1, column2 FROM (VALUES `

// newStage takes a connection and creates the stage in it.
func (s *Store) newStage(ctx context.Context) (*runStage, error) {
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// A stage left by an earlier writer that failed on this connection goes.
	for _, q := range []string{
		`DROP TABLE IF EXISTS temp.run_values_stage`,
		`CREATE TEMP TABLE run_values_stage (metric_key TEXT NOT NULL, scorer_key TEXT NOT NULL, task_specification_key TEXT NOT NULL, value REAL NOT NULL)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.Close()
			return nil, err
		}
	}
	values := newValueWriter(nil, s.app)
	values.prep, values.insertSQL = conn, stageValuesSQL
	return &runStage{conn: conn, values: values}, nil
}

// add appends the values of results to the stage, each INSERT its own
// transaction of the temporary database: the store's file is not touched.
func (g *runStage) add(ctx context.Context, results []model.Result) error {
	return g.values.write(ctx, "", "", results)
}

// finish runs fn in a transaction of the stage's connection.
func (g *runStage) finish(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := g.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// move inserts the staged values into metric_values as run evaluationKey/
// runID, in primary-key order (SQLite sorts them, spilling to temporary
// files rather than memory for a large run).
func (g *runStage) move(ctx context.Context, tx *sql.Tx, app, evaluationKey, runID string) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR FAIL INTO metric_values (app, evaluation_key, run_id, metric_key, task_specification_key, scorer_key, value)
		SELECT ?, ?, ?, metric_key, task_specification_key, scorer_key, value FROM temp.run_values_stage
		ORDER BY metric_key, task_specification_key, scorer_key`, app, evaluationKey, runID); err != nil {
		return fmt.Errorf("store: insert metric values of run %s/%s: %w", evaluationKey, runID, err)
	}
	return nil
}

// close drops the stage and gives the connection back to the pool.
func (g *runStage) close(ctx context.Context) {
	g.values.close()
	g.conn.ExecContext(ctx, `DROP TABLE IF EXISTS temp.run_values_stage`)
	g.conn.Close()
}
