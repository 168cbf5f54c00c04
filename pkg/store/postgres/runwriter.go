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

// RunWriter streams the results of a large run into the store (see
// sqlstore.RunWriter, which both backends share); completing or aborting
// its run takes the lock of its evaluation key.
type RunWriter = sqlstore.RunWriter[pgx.Tx]

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
	// The errors about its values name no location, as they always did.
	return sqlstore.NewRunWriter(runTxs{s}, head, s.app, s.loc, ""), nil
}

// runTxs are the transactions of the store's run writers.
type runTxs struct{ s *Store }

func (r runTxs) WithTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return r.s.withTx(ctx, fn)
}

func (r runTxs) Querier(tx pgx.Tx) sqlstore.Querier { return pgQuerier{tx} }

func (r runTxs) CompleteRun(ctx context.Context, tx pgx.Tx, app, evaluationKey, id, status string) error {
	if err := lockKey(ctx, tx, app, evaluationKey); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sqlstore.FinishRun.Postgres(), status, app, evaluationKey, id); err != nil {
		return fmt.Errorf("store: finish run %s/%s: %w", evaluationKey, id, err)
	}
	return refreshLatest(ctx, tx, app, evaluationKey)
}

func (r runTxs) DeleteRun(ctx context.Context, tx pgx.Tx, app, evaluationKey, id string) error {
	if err := lockKey(ctx, tx, app, evaluationKey); err != nil {
		return err
	}
	return deleteRun(ctx, tx, app, evaluationKey, id)
}
