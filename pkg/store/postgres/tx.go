package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// Tx is one atomic write: what Update's function does through it is
// committed together or not at all. The reads and writes whose logic
// SQLite shares come from sqlstore.Tx.
type Tx struct {
	sqlstore.Tx
	st *Store
	tx pgx.Tx
	// beforeCommit are the writes buffered by the transaction's handles
	// (EventIngest), sent before it commits.
	beforeCommit []func(ctx context.Context) error
	// entitiesLocked: the transaction holds the app's entity lock (entitylock.go).
	entitiesLocked bool
}

// Update runs fn in one transaction, committing when it returns nil and
// rolling back otherwise.
func (s *Store) Update(ctx context.Context, fn func(backend.Tx) error) error {
	return s.withTx(ctx, func(tx pgx.Tx) error {
		t := &Tx{Tx: sqlstore.NewTx(pgQuerier{tx}, s.app, s.loc), st: s, tx: tx}
		if err := fn(t); err != nil {
			return err
		}
		for _, f := range t.beforeCommit {
			if err := f(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// PutEntity upserts a methodology or risk scorer.
func (t *Tx) PutEntity(ctx context.Context, e backend.Entity) (backend.Outcome, error) {
	if err := t.lockEntities(ctx); err != nil {
		return "", err
	}
	return putEntity(ctx, t.tx, t.st.app, e)
}

// DeleteEntity removes an entity, telling whether there was one.
func (t *Tx) DeleteEntity(ctx context.Context, kind model.Kind, key string) (bool, error) {
	if err := t.lockEntities(ctx); err != nil {
		return false, err
	}
	return t.Tx.DeleteEntity(ctx, kind, key)
}

// PutRunYAML stores a run added from a file with its canonical YAML; a run
// whose stored YAML is the same is left alone (Unchanged).
func (t *Tx) PutRunYAML(ctx context.Context, run model.EvaluationRun, yamlText string) (backend.Outcome, error) {
	return putRunYAML(ctx, t.tx, t.st.app, run, yamlText)
}

// DeleteRun removes a run and its metric values.
func (t *Tx) DeleteRun(ctx context.Context, evaluationKey, id string) error {
	if err := lockKey(ctx, t.tx, t.st.app, evaluationKey); err != nil {
		return err
	}
	return deleteRun(ctx, t.tx, t.st.app, evaluationKey, id)
}
