package sqlstore

// The rows half of reading the store: what both backends do with rows once
// their driver has returned them (scanning into slices, decoding entity
// bodies, assembling a run's results).

import (
	"encoding/json"
	"fmt"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// Rows is what the result sets of both drivers (database/sql and pgx)
// offer for reading; the caller closes them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Collect scans every row into a new T, through the destinations dest
// returns for it, and returns them in row order.
func Collect[T any](rows Rows, dest func(*T) []any) ([]T, error) {
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(dest(&v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// EntityRows scans (key, body, yaml) rows into entities of kind.
func EntityRows(kind model.Kind) func(Rows, error) ([]backend.Entity, error) {
	return Scan(func(e *backend.Entity) []any {
		e.Kind = kind
		return []any{&e.Key, &e.Body, &e.YAML}
	})
}

// Methodologies decodes stored methodology entities, by key; err is the
// error of reading them.
func Methodologies(es []backend.Entity, err error) (map[string]*model.Methodology, error) {
	if err != nil {
		return nil, err
	}
	out := make(map[string]*model.Methodology, len(es))
	for _, e := range es {
		var m model.Methodology
		if err := json.Unmarshal([]byte(e.Body), &m); err != nil {
			return nil, fmt.Errorf("store: methodology %s: %w", e.Key, err)
		}
		out[m.Key] = &m
	}
	return out, nil
}

// RiskScorers decodes stored risk scorer entities, in their order; err is
// the error of reading them.
func RiskScorers(es []backend.Entity, err error) ([]*model.RiskScorer, error) {
	if err != nil {
		return nil, err
	}
	out := make([]*model.RiskScorer, 0, len(es))
	for _, e := range es {
		var s model.RiskScorer
		if err := json.Unmarshal([]byte(e.Body), &s); err != nil {
			return nil, fmt.Errorf("store: risk scorer %s: %w", e.Key, err)
		}
		out = append(out, &s)
	}
	return out, nil
}

// RunRows scans the rows of a run listing: evaluation key, id, created at,
// status, YAML, value count, tool, source file, original key and id.
var RunRows = Scan(func(r *backend.RunRow) []any {
	return []any{&r.EvaluationKey, &r.ID, &r.CreatedAt, &r.Status, &r.YAML, &r.Values, &r.Tool, &r.SourceFile, &r.OriginalKey, &r.OriginalID}
})

// Run decodes a stored run body and adds its results from rows of (task
// specification, scorer, metric, value) sorted by the first three.
func Run(body, evaluationKey, id string, values Rows) (*model.EvaluationRun, error) {
	var run model.EvaluationRun
	if err := json.Unmarshal([]byte(body), &run); err != nil {
		return nil, fmt.Errorf("store: run %s/%s: %w", evaluationKey, id, err)
	}
	for values.Next() {
		var t, sc, m string
		var v float64
		if err := values.Scan(&t, &sc, &m, &v); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		n := len(run.Results)
		if n == 0 || run.Results[n-1].TaskSpecificationKey != t || run.Results[n-1].ScorerKey != sc {
			run.Results = append(run.Results, model.Result{TaskSpecificationKey: t, ScorerKey: sc, Metrics: map[string]float64{}})
			n++
		}
		run.Results[n-1].Metrics[m] = v
	}
	return &run, values.Err()
}

// Scan returns a function that takes a query's result (rows, error), scans
// every row with Collect and closes rows; the driver's rows of both
// backends pass straight in: Scan(dest)(db.Query(...)).
func Scan[T any](dest func(*T) []any) func(Rows, error) ([]T, error) {
	return func(rows Rows, err error) ([]T, error) {
		if err != nil {
			return nil, err
		}
		defer Close(rows)
		return Collect(rows, dest)
	}
}

// Close closes database/sql rows (Close() error) and pgx rows (Close()).
func Close(rows Rows) {
	switch c := rows.(type) {
	case interface{ Close() error }:
		_ = c.Close()
	case interface{ Close() }:
		c.Close()
	}
}

// The rows of the agent-risk tables, in the column order both backends
// select them.
var (
	AgentRows = Scan(func(r *backend.AgentRow) []any {
		return []any{&r.TenantID, &r.AgentID, &r.AgentName, &r.Agg, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt}
	})
	// ScoreList rows: tenant, agent, name, tier, score, calculated at.
	ScoreList = Scan(func(r *backend.AgentScoreRow) []any {
		return []any{&r.TenantID, &r.AgentID, &r.AgentName, &r.Tier, &r.Score, &r.CalculatedAt}
	})
	// Scores rows: tenant, agent, score, tier, tier since.
	Scores = Scan(func(r *backend.AgentScoreRow) []any {
		return []any{&r.TenantID, &r.AgentID, &r.Score, &r.Tier, &r.TierSince}
	})
	History      = Scan(func(p *backend.HistoryPoint) []any { return []any{&p.At, &p.Score} })
	TenantBodies = Scan(func(t *backend.TenantBody) []any { return []any{&t.TenantID, &t.Body} })
	Strings      = Scan(func(s *string) []any { return []any{s} })
)
