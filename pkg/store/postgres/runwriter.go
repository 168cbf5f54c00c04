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
)

// RunWriter streams the results of a large run into the store. The run is
// stored as running first and takes its final status in Finish, so scorers
// never see it half written, and a writer that dies leaves a running run
// that garbage collection removes (see CollectGarbage).
//
// As in the SQLite store, the writer holds the values (runbatch.Held) and
// Finish copies them in primary-key order in the transaction that completes
// the run; a run beyond runbatch.HeldValues values has them copied out, in
// order, each time that many are held.
type RunWriter struct {
	*runbatch.Queue // Add, Written, ID
	st              *Store
	held            runbatch.Held
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
		if _, err := tx.Exec(ctx, `UPDATE evaluation_runs SET writer_pid = $1, writer_host = $2, heartbeat_at = $3
			WHERE app = $4 AND evaluation_key = $5 AND id = $6`, os.Getpid(), host, backend.FormatTime(time.Now()), s.app, head.EvaluationKey, head.ID); err != nil {
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
// it copies them out, and now and then it records the heartbeat.
func (w *RunWriter) hold(ctx context.Context, results []model.Result) error {
	w.held.Add(results)
	full := w.held.Full()
	if !full && time.Since(w.beat) < heartbeatEvery {
		return nil
	}
	w.beat = time.Now()
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
		if full {
			if err := copyHeld(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID, &w.held); err != nil {
				return err
			}
			w.held.Reset()
		}
		if _, err := tx.Exec(ctx, `UPDATE evaluation_runs SET heartbeat_at = $1 WHERE app = $2 AND evaluation_key = $3 AND id = $4`,
			backend.FormatTime(time.Now()), w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
			return w.st.errf(fmt.Sprintf("run %s/%s", w.Run.EvaluationKey, w.Run.ID), err)
		}
		return nil
	})
}

// Finish copies the values held and gives the run its final status
// (completed or failed) in the same transaction, which makes a completed
// run visible to scorers with all its values.
func (w *RunWriter) Finish(ctx context.Context, status string) error {
	w.held.Add(w.Take())
	// A writer that dies before its final status leaves its values behind
	// (the store's tests simulate it).
	abandon := os.Getenv(backend.AbandonEnv) == "1"
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
		if err := copyHeld(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID, &w.held); err != nil || abandon {
			return err
		}
		if err := lockKey(ctx, tx, w.st.app, w.Run.EvaluationKey); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE evaluation_runs SET status = $1, body = jsonb_set(body::jsonb, '{status}', to_jsonb($1::text))::text,
			writer_pid = 0, writer_host = '', heartbeat_at = '' WHERE app = $2 AND evaluation_key = $3 AND id = $4`,
			status, w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
			return fmt.Errorf("store: finish run %s/%s: %w", w.Run.EvaluationKey, w.Run.ID, err)
		}
		return refreshLatest(ctx, tx, w.st.app, w.Run.EvaluationKey)
	})
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

// copyHeld copies the values held in h into metric_values as run
// evaluationKey/runID, in key order, copyBlock rows per COPY.
func copyHeld(ctx context.Context, tx pgx.Tx, app, evaluationKey, runID string, h *runbatch.Held) error {
	var rows [][]any
	send := func() error {
		if len(rows) == 0 {
			return nil
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"metric_values"}, valueColumns, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("store: insert metric values of run %s/%s: %w", evaluationKey, runID, err)
		}
		rows = rows[:0]
		return nil
	}
	err := h.Each(func(metric string, vals []runbatch.Row) error {
		for _, v := range vals {
			rows = append(rows, []any{app, evaluationKey, runID, metric, v.Task, v.Scorer, v.Value})
			if len(rows) == copyBlock {
				if err := send(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return send()
}

// copyBlock is how many rows one COPY of a run's values carries.
const copyBlock = 50_000
