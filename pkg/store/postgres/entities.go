package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/model"
)

// putEntity upserts an entity in one statement, so that processes adding
// the same key at once both succeed (one creates, the other updates or
// finds it unchanged). A row comes back only when something was written;
// xmax = 0 tells an insert from an update.
func putEntity(ctx context.Context, tx pgx.Tx, app string, e Entity) (Outcome, error) {
	var inserted bool
	err := tx.QueryRow(ctx, `INSERT INTO entities AS e (app, kind, key, body, yaml, updated_at) VALUES ($6, $1, $2, $3, $4, $5)
		ON CONFLICT (app, kind, key) DO UPDATE SET body = excluded.body, yaml = excluded.yaml, updated_at = excluded.updated_at
		WHERE e.body <> excluded.body OR e.yaml <> excluded.yaml
		RETURNING (xmax = 0)`, string(e.Kind), e.Key, e.Body, e.YAML, FormatTime(time.Now()), app).Scan(&inserted)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Unchanged, nil
	case err != nil:
		return "", fmt.Errorf("store: put %s %s: %w", e.Kind, e.Key, err)
	case inserted:
		return Created, nil
	}
	return Updated, nil
}

// deleteEntity deletes an entity inside tx and reports whether it existed.
func deleteEntity(ctx context.Context, tx pgx.Tx, app string, kind model.Kind, key string) (bool, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM entities WHERE app = $1 AND kind = $2 AND key = $3`, app, string(kind), key)
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// entities lists the entities of a kind, sorted by key.
func entities(ctx context.Context, q querier, app string, kind model.Kind) ([]Entity, error) {
	rows, err := q.Query(ctx, `SELECT key, body, yaml FROM entities WHERE app = $1 AND kind = $2 ORDER BY key`, app, string(kind))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Entity
	for rows.Next() {
		e := Entity{Kind: kind}
		if err := rows.Scan(&e.Key, &e.Body, &e.YAML); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// methodologies returns the stored methodologies by key.
func methodologies(ctx context.Context, q querier, app string) (map[string]*model.Methodology, error) {
	es, err := entities(ctx, q, app, model.KindMethodology)
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

// riskScorers returns the stored risk scorers sorted by key.
func riskScorers(ctx context.Context, q querier, app string) ([]*model.RiskScorer, error) {
	es, err := entities(ctx, q, app, model.KindRiskScorer)
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
