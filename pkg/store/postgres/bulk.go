package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
)

// BulkRuns writes many completed runs of one evaluation key inside a Tx
// with COPY: rows are buffered and sent in blocks of bulkBlock. It is for
// generated data (benchmarks); evaluations use RecordRun or BeginRun.
type BulkRuns struct {
	tx         pgx.Tx
	app, key   string
	runs, vals [][]any
}

// bulkBlock is how many rows one COPY carries.
const bulkBlock = 50_000

// BulkRuns starts a bulk write of runs of evaluationKey; Close it.
func (t *Tx) BulkRuns(ctx context.Context, evaluationKey string) (backend.BulkRuns, error) {
	if err := lockKey(ctx, t.tx, t.st.app, evaluationKey); err != nil {
		return nil, err
	}
	return &BulkRuns{tx: t.tx, app: t.st.app, key: evaluationKey}, nil
}

// Run adds a completed run (without results: add them with Value).
func (b *BulkRuns) Run(ctx context.Context, id string, created time.Time) error {
	b.runs = append(b.runs, []any{b.app, b.key, id, backend.FormatTime(created), "completed", "{}"})
	return nil
}

// Value adds one metric value of run id.
func (b *BulkRuns) Value(ctx context.Context, id, task, scorer, metric string, v float64) error {
	b.vals = append(b.vals, []any{b.app, b.key, id, metric, task, scorer, v})
	if len(b.vals) >= bulkBlock {
		return b.flushValues(ctx)
	}
	return nil
}

func (b *BulkRuns) flushValues(ctx context.Context) error {
	if len(b.vals) == 0 {
		return nil
	}
	if _, err := b.tx.CopyFrom(ctx, pgx.Identifier{"metric_values"}, valueColumns, pgx.CopyFromRows(b.vals)); err != nil {
		return fmt.Errorf("store: bulk values of %s: %w", b.key, err)
	}
	b.vals = b.vals[:0]
	return nil
}

// Close writes what is buffered and brings the latest run of the key up to
// date.
func (b *BulkRuns) Close(ctx context.Context) error {
	if err := b.flushValues(ctx); err != nil {
		return err
	}
	if len(b.runs) > 0 {
		if _, err := b.tx.CopyFrom(ctx, pgx.Identifier{"evaluation_runs"},
			[]string{"app", "evaluation_key", "id", "created_at", "status", "body"}, pgx.CopyFromRows(b.runs)); err != nil {
			return fmt.Errorf("store: bulk runs of %s: %w", b.key, err)
		}
		b.runs = nil
	}
	return refreshLatest(ctx, b.tx, b.app, b.key)
}
