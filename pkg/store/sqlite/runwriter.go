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

// RunWriter streams the results of a large evaluation run into the store
// (see sqlstore.RunWriter, which both backends share).
type RunWriter = sqlstore.RunWriter[*sql.Tx]

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
	return sqlstore.NewRunWriter(runTxs{s}, head, s.app, s.Path, s.Path), nil
}

// runTxs are the transactions of the store's run writers.
type runTxs struct{ s *Store }

func (r runTxs) WithTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return r.s.withTx(ctx, fn)
}

func (r runTxs) Querier(tx *sql.Tx) sqlstore.Querier { return newTxQuerier(tx) }

func (r runTxs) CompleteRun(ctx context.Context, tx *sql.Tx, app, evaluationKey, id, status string) error {
	if _, err := tx.ExecContext(ctx, sqlstore.FinishRun.SQLite(), status, app, evaluationKey, id); err != nil {
		return fmt.Errorf("store: finish run %s/%s: %w", evaluationKey, id, err)
	}
	return refreshLatest(ctx, tx, app, evaluationKey)
}

func (r runTxs) DeleteRun(ctx context.Context, tx *sql.Tx, app, evaluationKey, id string) error {
	return deleteRun(ctx, tx, app, evaluationKey, id)
}
