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

// RunWriter streams the results of a large evaluation run into the store in
// batches, so memory stays flat however many results a run has. The run is
// written with status "running" first and takes its final status in Finish:
// risk scorers read only completed runs, so they never see a run that is
// still being written, and a process killed mid-run leaves a run marked
// running, not a half-written completed one.
type RunWriter struct {
	*runbatch.Queue // Add, Written, ID
	st              *Store
}

// runWriterBatch is how many results go into one transaction.
const runWriterBatch = runbatch.Size

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
	w := &RunWriter{st: s}
	w.Queue = runbatch.New(head, w.write)
	return w, nil
}

// write stores one batch of results and the writer's heartbeat.
func (w *RunWriter) write(ctx context.Context, results []model.Result) error {
	return w.st.withTx(ctx, func(tx *sql.Tx) error {
		if err := insertValues(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID, results); err != nil {
			return err
		}
		return w.heartbeat(ctx, tx)
	})
}

// heartbeat records that the run's writer is still at work.
func (w *RunWriter) heartbeat(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE evaluation_runs SET heartbeat_at = ? WHERE app = ? AND evaluation_key = ? AND id = ?`,
		backend.FormatTime(time.Now()), w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
		return fmt.Errorf("store %s: run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
	}
	return nil
}

// Finish writes what is queued and gives the run its final status
// (completed or failed), which makes a completed run visible to scorers.
func (w *RunWriter) Finish(ctx context.Context, status string) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	if os.Getenv(backend.AbandonEnv) == "1" {
		return nil
	}
	return w.st.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE evaluation_runs SET status = ?, body = json_set(body, '$.status', ?),
			writer_pid = 0, writer_host = '', heartbeat_at = '' WHERE app = ? AND evaluation_key = ? AND id = ?`,
			status, status, w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
			return fmt.Errorf("store: finish run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
		}
		return refreshLatest(ctx, tx, w.st.app, w.Run.EvaluationKey)
	})
}

// Abort removes the run and what was written of it.
func (w *RunWriter) Abort(ctx context.Context) error {
	return w.st.withTx(ctx, func(tx *sql.Tx) error { return deleteRun(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID) })
}
