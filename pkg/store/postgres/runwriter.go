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

// RunWriter streams the results of a large run into the store in batches
// (one transaction and one COPY each). The run is stored as running first
// and takes its final status in Finish, so scorers never see it half
// written, and a writer that dies leaves a running run that garbage
// collection removes (see CollectGarbage).
type RunWriter struct {
	*runbatch.Queue // Add, Written, ID
	st              *Store
}

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
	w := &RunWriter{st: s}
	w.Queue = runbatch.New(head, w.write)
	return w, nil
}

// write stores one batch of results and the writer's heartbeat.
func (w *RunWriter) write(ctx context.Context, results []model.Result) error {
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
		if err := copyValues(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID, results); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE evaluation_runs SET heartbeat_at = $1 WHERE app = $2 AND evaluation_key = $3 AND id = $4`,
			backend.FormatTime(time.Now()), w.st.app, w.Run.EvaluationKey, w.Run.ID); err != nil {
			return w.st.errf(fmt.Sprintf("run %s/%s", w.Run.EvaluationKey, w.Run.ID), err)
		}
		return nil
	})
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
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
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
	return w.st.withTx(ctx, func(tx pgx.Tx) error {
		if err := lockKey(ctx, tx, w.st.app, w.Run.EvaluationKey); err != nil {
			return err
		}
		return deleteRun(ctx, tx, w.st.app, w.Run.EvaluationKey, w.Run.ID)
	})
}
