package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/rowset"
)

// Tx is one atomic write: what Update's function does through it is
// committed together or not at all.
type Tx struct {
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
		t := &Tx{st: s, tx: tx}
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

// Entities lists the stored entities of a kind, sorted by key.
func (s *Store) Entities(ctx context.Context, kind model.Kind) ([]backend.Entity, error) {
	return entities(ctx, s.Pool, s.app, kind)
}

// Methodologies returns the stored methodologies by key.
func (s *Store) Methodologies(ctx context.Context) (map[string]*model.Methodology, error) {
	return rowset.Methodologies(entities(ctx, s.Pool, s.app, model.KindMethodology))
}

// RiskScorers returns the stored risk scorers sorted by key.
func (s *Store) RiskScorers(ctx context.Context) ([]*model.RiskScorer, error) {
	return rowset.RiskScorers(entities(ctx, s.Pool, s.app, model.KindRiskScorer))
}

// Runs lists the stored runs sorted by evaluation key and id.
func (s *Store) Runs(ctx context.Context) ([]backend.RunRow, error) { return runs(ctx, s.Pool, s.app) }

// Run loads one run with its results; nil when there is none.
func (s *Store) Run(ctx context.Context, evaluationKey, id string) (*model.EvaluationRun, error) {
	return loadRun(ctx, s.Pool, s.app, evaluationKey, id)
}

// Entities lists the entities of a kind inside the transaction.
func (t *Tx) Entities(ctx context.Context, kind model.Kind) ([]backend.Entity, error) {
	return entities(ctx, t.tx, t.st.app, kind)
}

// RiskScorers returns the risk scorers inside the transaction.
func (t *Tx) RiskScorers(ctx context.Context) ([]*model.RiskScorer, error) {
	return rowset.RiskScorers(entities(ctx, t.tx, t.st.app, model.KindRiskScorer))
}

// Runs lists the runs inside the transaction.
func (t *Tx) Runs(ctx context.Context) ([]backend.RunRow, error) { return runs(ctx, t.tx, t.st.app) }

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
	return deleteEntity(ctx, t.tx, t.st.app, kind, key)
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
