package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
)

// BulkRuns writes many completed runs of one evaluation key inside a Tx as
// fast as the engine allows (prepared statements, no replace or change
// checks). It is for generated data (benchmarks); evaluations use
// RecordRun or BeginRun.
type BulkRuns struct {
	tx       *sql.Tx
	app, key string
	run, val *sql.Stmt
}

// BulkRuns starts a bulk write of runs of evaluationKey; Close it.
func (t *Tx) BulkRuns(ctx context.Context, evaluationKey string) (backend.BulkRuns, error) {
	b := &BulkRuns{tx: t.tx, app: t.st.app, key: evaluationKey}
	var err error
	if b.run, err = t.tx.PrepareContext(ctx, `INSERT INTO evaluation_runs (app, evaluation_key, id, created_at, status, body) VALUES (?, ?, ?, ?, 'completed', '{}')`); err != nil {
		return nil, fmt.Errorf("store %s: %w", t.st.Path, err)
	}
	if b.val, err = t.tx.PrepareContext(ctx, `INSERT INTO metric_values (app, evaluation_key, run_id, task_specification_key, scorer_key, metric_key, value) VALUES (?, ?, ?, ?, ?, ?, ?)`); err != nil {
		b.run.Close()
		return nil, fmt.Errorf("store %s: %w", t.st.Path, err)
	}
	return b, nil
}

// Run adds a completed run (without results: add them with Value).
func (b *BulkRuns) Run(ctx context.Context, id string, created time.Time) error {
	_, err := b.run.ExecContext(ctx, b.app, b.key, id, backend.FormatTime(created))
	return err
}

// Value adds one metric value of run id.
func (b *BulkRuns) Value(ctx context.Context, id, task, scorer, metric string, v float64) error {
	_, err := b.val.ExecContext(ctx, b.app, b.key, id, task, scorer, metric, v)
	return err
}

// Close brings the latest run of the key up to date and releases the
// statements.
func (b *BulkRuns) Close(ctx context.Context) error {
	b.run.Close()
	b.val.Close()
	return refreshLatest(ctx, b.tx, b.app, b.key)
}
