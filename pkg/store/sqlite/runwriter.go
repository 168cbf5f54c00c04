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
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// RunWriter streams the results of a large evaluation run into the store.
// The run is written with status "running" first and takes its final status
// in Finish: risk scorers read only completed runs, so they never see a run
// that is still being written, and a process killed mid-run leaves a run
// marked running, not a half-written completed one.
//
// The values go into run_value_blocks (migration 80), not metric_values: the
// writer holds them compactly (runbatch.Held, 16 bytes a value) and Finish
// encodes them as one block (runbatch.Block: the run's tasks once, then each
// metric's values, about 12 bytes a value) and writes it in the transaction
// that completes the run. As rows of metric_values, the 267,300 values of a
// recorded scan of 92 MB of traces cost about a second of B-tree inserts
// after the scan; as a block, a few milliseconds. Beyond runbatch.HeldValues
// values (a run of a few hundred megabytes of traces) the held values are
// written out as a block of their own, in a transaction of their own while
// the run is still running, so that memory stays bounded however large the
// run.
type RunWriter struct {
	*runbatch.Queue // Add, Written, ID
	st              *Store
	held            runbatch.Held
	blocks          int       // blocks written so far
	beat            time.Time // the last heartbeat
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
		if _, err := tx.ExecContext(ctx, sqlstore.BeginRunWriter.SQLite(), os.Getpid(), host, backend.FormatTime(time.Now()), s.app, head.EvaluationKey, head.ID); err != nil {
			return fmt.Errorf("store %s: begin run %s/%s: %w", s.Path, head.EvaluationKey, head.ID, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	w := &RunWriter{st: s, beat: time.Now()}
	w.Queue = runbatch.NewSized(head, runbatch.HoldBatch, w.hold)
	return w, nil
}

// hold takes a batch of results into the writer's held values, writing
// them out as a block when there are too many, and records the heartbeat
// now and then.
func (w *RunWriter) hold(ctx context.Context, results []model.Result) error {
	w.held.Add(results)
	full := w.held.Full()
	if !full && time.Since(w.beat) < heartbeatEvery {
		return nil
	}
	w.beat = time.Now()
	var block []byte
	var n int
	if full {
		var err error
		if block, n, err = w.held.Block(true); err != nil {
			return fmt.Errorf("store %s: run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
		}
	}
	return w.st.withTx(ctx, func(tx *sql.Tx) error {
		if full {
			if err := w.writeBlock(ctx, tx, block, n); err != nil {
				return err
			}
			w.held.Reset()
		}
		return w.heartbeat(ctx, tx)
	})
}

// writeBlock stores the next block of the run's values.
func (w *RunWriter) writeBlock(ctx context.Context, tx *sql.Tx, block []byte, n int) error {
	if _, err := tx.ExecContext(ctx, sqlstore.InsertValueBlock.SQLite(),
		w.st.app, w.Run.EvaluationKey, w.Run.ID, w.blocks, n, block); err != nil {
		return fmt.Errorf("store %s: insert metric values of run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
	}
	w.blocks++
	return nil
}

// heartbeat records that the run's writer is still at work.
func (w *RunWriter) heartbeat(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, sqlstore.RunHeartbeat.SQLite(),
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
	var block []byte
	n := w.held.Len()
	if n > 0 {
		var err error
		if block, n, err = w.held.Block(false); err != nil {
			return fmt.Errorf("store %s: run %s/%s: %w", w.st.Path, w.Run.EvaluationKey, w.Run.ID, err)
		}
		w.held = runbatch.Held{} // garbage while the block is written
	}
	return w.st.withTx(ctx, func(tx *sql.Tx) error {
		if n > 0 {
			if err := w.writeBlock(ctx, tx, block, n); err != nil {
				return err
			}
		}
		if abandon {
			return nil
		}
		return w.finish(ctx, tx, status)
	})
}

// finish gives the run its final status and brings the evaluation's latest
// run up to date.
func (w *RunWriter) finish(ctx context.Context, tx *sql.Tx, status string) error {
	if _, err := tx.ExecContext(ctx, sqlstore.FinishRun.SQLite(),
		status, w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
		return fmt.Errorf("store: finish run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
	}
	return refreshLatest(ctx, tx, w.st.app, w.Run.EvaluationKey)
}

// Abort removes the run and what was written of it.
func (w *RunWriter) Abort(ctx context.Context) error {
	w.Take()
	w.held.Reset()
	return w.st.withTx(ctx, func(tx *sql.Tx) error { return deleteRun(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID) })
}
