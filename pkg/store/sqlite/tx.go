package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// Tx is one atomic write: what Update's function does through it is
// committed together or not at all. Domain packages write through Tx and
// never see the database underneath. The reads and writes whose logic
// PostgreSQL shares come from sqlstore.Tx.
type Tx struct {
	sqlstore.Tx
	st   *Store
	tx   *sql.Tx
	q    *txQuerier   // the shared statements, prepared once per transaction
	vals *valueWriter // metric-value inserts, prepared once per transaction
}

// Update runs fn in one transaction, committing when it returns nil and
// rolling back otherwise.
func (s *Store) Update(ctx context.Context, fn func(backend.Tx) error) error {
	return s.withTx(ctx, func(tx *sql.Tx) error { return fn(s.newTx(tx)) })
}

func (s *Store) newTx(tx *sql.Tx) *Tx {
	q := newTxQuerier(tx)
	return &Tx{Tx: sqlstore.NewTx(q, s.app, s.Path), st: s, tx: tx, q: q}
}

// PutEntity upserts a methodology or risk scorer.
func (t *Tx) PutEntity(ctx context.Context, e backend.Entity) (backend.Outcome, error) {
	return putEntity(ctx, t.tx, t.st.app, e)
}

// PutRunYAML stores a run added from a file with its canonical YAML; a run
// whose stored YAML is the same is left alone (Unchanged).
func (t *Tx) PutRunYAML(ctx context.Context, run model.EvaluationRun, yamlText string) (backend.Outcome, error) {
	if t.vals == nil {
		t.vals = newValueWriter(t.tx, t.st.app)
	}
	var yml string
	sel, err := t.vals.stmt(ctx, sqlstore.RunYAML.SQLite())
	if err == nil {
		err = sel.QueryRowContext(ctx, t.st.app, run.EvaluationKey, run.ID).Scan(&yml)
	}
	outcome := backend.Updated
	switch {
	case errors.Is(err, sql.ErrNoRows):
		outcome = backend.Created
	case err != nil:
		return "", fmt.Errorf("store %s: run %s/%s: %w", t.st.Path, run.EvaluationKey, run.ID, err)
	case yml == yamlText:
		return backend.Unchanged, nil
	}
	return outcome, putRun(ctx, t.vals, run, yamlText, outcome == backend.Updated)
}

// DeleteRun removes a run and its metric values.
func (t *Tx) DeleteRun(ctx context.Context, evaluationKey, id string) error {
	return deleteRun(ctx, t.tx, t.st.app, evaluationKey, id)
}
