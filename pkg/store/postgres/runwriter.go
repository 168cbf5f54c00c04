package postgres

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// RunWriter streams the results of a large run into the store. The run is
// stored as running first and takes its final status in Finish, so scorers
// never see it half written, and a writer that dies leaves a running run
// that garbage collection removes (see CollectGarbage).
//
// As in the SQLite store, the writer holds the values (runbatch.Held) and
// Finish writes them as one block of run_value_blocks (runbatch.Block) in
// the transaction that completes the run; a run beyond runbatch.HeldValues
// values has them written out as a block each time that many are held.
type RunWriter struct {
	*runbatch.Queue // Add, Written, ID
	st              *Store
	held            runbatch.Held
	blocks          int       // blocks written so far
	beat            time.Time // the last heartbeat
}

// heartbeatEvery is how often a long run's writer records that it is alive.
const heartbeatEvery = time.Minute

// BeginRun records the head of run (its Results are ignored) as running,
// replacing a run with the same evaluation key and id.
func (s *Store) BeginRun(ctx context.Context, run model.EvaluationRun) (backend.RunWriter, error) {
	head := runbatch.Head(run)
	host, _ := os.Hostname()
	if err := s.withTx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, s.app, head.EvaluationKey); err != nil {
			return err
		}
		if err := putRun(ctx, tx, s.app, head, "", true); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlstore.BeginRunWriter.Postgres(), os.Getpid(), host, backend.FormatTime(time.Now()), s.app, head.EvaluationKey, head.ID); err != nil {
			return s.errf("begin run "+head.EvaluationKey+"/"+head.ID, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	w := &RunWriter{st: s, beat: time.Now()}
	w.Queue = runbatch.NewSized(head, runbatch.HoldBatch, w.hold)
	return w, nil
}

// hold takes a batch of results into the held values; when they are many
// it writes them out as a block, and now and then it records the heartbeat.
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
			return fmt.Errorf("store: run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
		}
	}
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
		if full {
			if err := w.writeBlock(ctx, tx, block, n); err != nil {
				return err
			}
			w.held.Reset()
		}
		if _, err := tx.Exec(ctx, sqlstore.RunHeartbeat.Postgres(),
			backend.FormatTime(time.Now()), w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
			return w.st.errf(fmt.Sprintf("run %s/%s", w.Run.EvaluationKey, w.Run.ID), err)
		}
		return nil
	})
}

// writeBlock stores the next block of the run's values.
func (w *RunWriter) writeBlock(ctx context.Context, tx pgx.Tx, block []byte, n int) error {
	if _, err := tx.Exec(ctx, sqlstore.InsertValueBlock.Postgres(),
		w.st.app, w.Run.EvaluationKey, w.Run.ID, w.blocks, n, block); err != nil {
		return fmt.Errorf("store: insert metric values of run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
	}
	w.blocks++
	return nil
}

// Finish writes the values held and gives the run its final status
// (completed or failed) in the same transaction, which makes a completed
// run visible to scorers with all its values.
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
			return fmt.Errorf("store: run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
		}
		w.held = runbatch.Held{} // garbage while the block is written
	}
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
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
func (w *RunWriter) finish(ctx context.Context, tx pgx.Tx, status string) error {
	if err := lockKey(ctx, tx, w.st.app, w.Run.EvaluationKey); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sqlstore.FinishRun.Postgres(),
		status, w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
		return fmt.Errorf("store: finish run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
	}
	return refreshLatest(ctx, tx, w.st.app, w.Run.EvaluationKey)
}

// Abort removes the run and what was written of it.
func (w *RunWriter) Abort(ctx context.Context) error {
	w.Take()
	w.held.Reset()
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, w.st.app, w.Run.EvaluationKey); err != nil {
			return err
		}
		return deleteRun(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID)
	})
}
