package sqlstore

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
)

// RunTxs is what the shared RunWriter needs of its backend, T being the
// backend's transaction.
type RunTxs[T any] interface {
	// WithTx runs fn in one transaction, committing when it returns nil.
	WithTx(ctx context.Context, fn func(tx T) error) error
	// Querier runs the shared statements in tx.
	Querier(tx T) Querier
	// CompleteRun runs FinishRun (status, app, key, id) in tx, with the
	// backend's locks, and brings the latest run of the key up to date.
	CompleteRun(ctx context.Context, tx T, app, evaluationKey, id, status string) error
	// DeleteRun removes a run and its values in tx, with the backend's
	// locks.
	DeleteRun(ctx context.Context, tx T, app, evaluationKey, id string) error
}

// RunWriter streams the results of a large run into the store, on both
// backends. The run is written with status "running" first (the backend's
// BeginRun) and takes its final status in Finish: risk scorers read only
// completed runs, so they never see a run that is still being written, and
// a process killed mid-run leaves a run marked running, not a half-written
// completed one (garbage collection removes it).
//
// The values go into run_value_blocks (migration 80), not metric_values: the
// writer holds them compactly (runbatch.Held, 16 bytes a value) and Finish
// encodes them as one block (runbatch.Block: the run's tasks once, then each
// metric's values, about 12 bytes a value) and writes it in the transaction
// that completes the run. As rows of metric_values, the 267,300 values of a
// recorded scan of 92 MB of traces cost about a second of SQLite B-tree
// inserts after the scan; as a block, a few milliseconds. Beyond
// runbatch.HeldValues values (a run of a few hundred megabytes of traces)
// the held values are written out as a block of their own, in a transaction
// of their own while the run is still running, so that memory stays bounded
// however large the run.
type RunWriter[T any] struct {
	*runbatch.Queue // Add, Written, ID
	txs             RunTxs[T]
	app, loc        string
	// valuesLoc is the location the errors about the values name ("": the
	// PostgreSQL store's say "store:" alone).
	valuesLoc string
	held      runbatch.Held
	blocks    int       // blocks written so far
	beat      time.Time // the last heartbeat
}

// HeartbeatEvery is how often a long run's writer records that it is alive.
const HeartbeatEvery = time.Minute

// NewRunWriter returns the writer of the results of head, a run the
// backend has just recorded as running in app of the store at loc.
func NewRunWriter[T any](txs RunTxs[T], head model.EvaluationRun, app, loc, valuesLoc string) *RunWriter[T] {
	w := &RunWriter[T]{txs: txs, app: app, loc: loc, valuesLoc: valuesLoc, beat: time.Now()}
	w.Queue = runbatch.NewSized(head, runbatch.HoldBatch, w.hold)
	return w
}

// valuesErr wraps an error about the run's values.
func (w *RunWriter[T]) valuesErr(what string, err error) error {
	what = fmt.Sprintf("%s %s/%s", what, w.Run.EvaluationKey, w.Run.ID)
	if w.valuesLoc == "" {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return Errf(w.valuesLoc, what, err)
}

// hold takes a batch of results into the writer's held values, writing
// them out as a block when there are too many, and records the heartbeat
// now and then.
func (w *RunWriter[T]) hold(ctx context.Context, results []model.Result) error {
	w.held.Add(results)
	full := w.held.Full()
	if !full && time.Since(w.beat) < HeartbeatEvery {
		return nil
	}
	w.beat = time.Now()
	var block []byte
	var n int
	if full {
		var err error
		if block, n, err = w.held.Block(true); err != nil {
			return w.valuesErr("run", err)
		}
	}
	return w.txs.WithTx(ctx, func(tx T) error {
		q := w.txs.Querier(tx)
		if full {
			if err := w.writeBlock(ctx, q, block, n); err != nil {
				return err
			}
			w.held.Reset()
		}
		if _, err := q.Exec(ctx, RunHeartbeat, backend.FormatTime(time.Now()), w.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
			return Errf(w.loc, fmt.Sprintf("run %s/%s", w.Run.EvaluationKey, w.Run.ID), err)
		}
		return nil
	})
}

// writeBlock stores the next block of the run's values.
func (w *RunWriter[T]) writeBlock(ctx context.Context, q Querier, block []byte, n int) error {
	if _, err := q.Exec(ctx, InsertValueBlock, w.app, w.Run.EvaluationKey, w.Run.ID, w.blocks, n, block); err != nil {
		return w.valuesErr("insert metric values of run", err)
	}
	w.blocks++
	return nil
}

// Finish writes the values held and gives the run its final status
// (completed or failed) in the same transaction, which makes a completed
// run visible to scorers with all its values.
func (w *RunWriter[T]) Finish(ctx context.Context, status string) error {
	w.held.Add(w.Take())
	// A writer that dies before its final status leaves its values behind
	// (the store's tests simulate it).
	abandon := os.Getenv(backend.AbandonEnv) == "1"
	var block []byte
	n := w.held.Len()
	if n > 0 {
		var err error
		if block, n, err = w.held.Block(false); err != nil {
			return w.valuesErr("run", err)
		}
		w.held = runbatch.Held{} // garbage while the block is written
	}
	return w.txs.WithTx(ctx, func(tx T) error {
		if n > 0 {
			if err := w.writeBlock(ctx, w.txs.Querier(tx), block, n); err != nil {
				return err
			}
		}
		if abandon {
			return nil
		}
		return w.txs.CompleteRun(ctx, tx, w.app, w.Run.EvaluationKey, w.Run.ID, status)
	})
}

// Abort removes the run and what was written of it.
func (w *RunWriter[T]) Abort(ctx context.Context) error {
	w.Take()
	w.held.Reset()
	return w.txs.WithTx(ctx, func(tx T) error { return w.txs.DeleteRun(ctx, tx, w.app, w.Run.EvaluationKey, w.Run.ID) })
}
